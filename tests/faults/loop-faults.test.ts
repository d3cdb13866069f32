// A loop survives its worker (docs/ARCHITECTURE.md, "Workflow agents and operator control"; LoopAgent scenario 2): a
// worker SIGKILLed in the middle of a sub-agent's model stream is replaced by a new worker that continues that same
// sub-agent — same child workflow, only the interrupted call asked again — without re-running the sub-agents already
// done; and a paused loop whose worker goes away resumes on a new worker.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient } from '../../client/agio-client';
import { loopAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { activities, sentMessages } from '../helpers/agent-runs';
import { childStarts, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { startTestWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import {
  agentKey,
  agentOfRequest,
  agentStates,
  requestsOfAgent,
  subAgent,
  trail,
  waitFor,
} from '../helpers/workflow-agents';

describe('loop faults', () => {
  const bed = useTestBed({ worker: false });
  const { model } = bed;
  let first: WorkerProcess | undefined;
  let workers: TestWorker[] = [];
  let workspaceRoot: string;

  beforeAll(async () => {
    workspaceRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-ws-loop-faults-'));
  });
  afterAll(async () => {
    await fs.rm(workspaceRoot, { recursive: true, force: true });
  });
  afterEach(async () => {
    await stopWorkerProcess(first);
    first = undefined;
    for (const w of workers) await w.stop();
    workers = [];
  });

  it('continues B on a new worker after a SIGKILL mid-stream in iteration 2, without running A of that iteration again (LoopAgent scenario 2)', async () => {
    const taskQueue = uniqueId('loop-kill');
    first = await startTestWorkerProcess({ taskQueue, model: model(), workspaceRoot });
    bed.server.scriptFor(agentKey('A'), text('A one'), text('A two'));
    // B's second answer streams slowly (~20 chunks 150 ms apart); the worker dies after its third chunk.
    bed.server.scriptFor(
      agentKey('B'),
      text('B one'),
      text('B two, streamed slowly', { chunkSize: 1, delayMs: 150 }),
      text('B two, after the crash'),
    );
    bed.server.scriptFor(agentKey('C'), text('C one'), text('C two'));
    const killed = new Promise<void>((resolve) => {
      bed.server.onChunk = ({ requestIndex, chunkIndex }) => {
        const request = bed.server.requests[requestIndex];
        if (
          agentOfRequest(request) === 'B' &&
          requestsOfAgent(bed.server, 'B').indexOf(request) === 1 &&
          chunkIndex === 2
        ) {
          first!.kill('SIGKILL');
          resolve();
        }
      };
    });
    const loop = loopAgent({
      name: 'crashy',
      subAgents: [subAgent('A'), subAgent('B'), subAgent('C')],
      maxIterations: 2,
    });

    const run = await new AgioClient(bed.client, { taskQueue }).start(loop, 'go', {
      limits: { modelHeartbeatTimeoutMs: 2000 },
    });
    await killed;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'C', 'A', 'B']);
    workers.push(
      await startTestWorker({ model: model(), taskQueue, workerOptions: { stickyQueueScheduleToStartTimeout: 1000 } }),
    );
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'C two' });
    // A of iteration 2 ran once; only B's interrupted call was asked again, with the same conversation.
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'C', 'A', 'B', 'B', 'C']);
    const b = requestsOfAgent(bed.server, 'B');
    expect(sentMessages(b[2])).toEqual(sentMessages(b[1]));
    expect(agentStates(events)).toEqual(trail([0, 1], ['A', 'B', 'C']));
    // The same child workflow continued B: each sub-agent run started once, and B's call completed on attempt 2.
    const bId = `${run.runId}/loop-1/1-B`;
    expect(childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId)).toEqual(
      trail([0, 1], ['A', 'B', 'C']).map((p, i) => `${run.runId}/loop-${p.timesLooped}/${i % 3}-${p.currentSubAgent}`),
    );
    expect(
      activities(await bed.client.workflow.getHandle(bId).fetchHistory(), 'callModel').map((c) => [
        c.completed,
        c.completedAttempt,
      ]),
    ).toEqual([[true, 2]]);
    expect(events.filter((e) => e.runId === bId && e.type === 'STEP_RETRY')).toHaveLength(1);
    const bSteps = events.filter(
      (e) => e.runId === bId && e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant',
    );
    expect(bSteps.map((e) => e.snapshot?.content)).toEqual(['B two, after the crash']);
  });

  it('resumes a paused loop on a new worker after the old one has stopped', async () => {
    const taskQueue = uniqueId('loop-pause-stop');
    const options = {
      model: model(),
      taskQueue,
      workspaceRoot,
      workerOptions: { stickyQueueScheduleToStartTimeout: 1000 },
    };
    workers.push(await startTestWorker(options));
    bed.server.scriptFor(agentKey('A'), text('A is slow to answer', { chunkSize: 1, delayMs: 150 }));
    bed.server.scriptFor(agentKey('B'), text('B on the new worker'));
    const started = new Promise<void>((resolve) => {
      bed.server.onChunk = () => resolve();
    });
    const loop = loopAgent({
      name: 'paused-across-workers',
      subAgents: [subAgent('A'), subAgent('B')],
      maxIterations: 1,
    });

    const run = await new AgioClient(bed.client, { taskQueue }).start(loop, 'go');
    await started;
    expect(await run.pause({ reason: 'deploy', by: 'ops' })).toMatchObject({ paused: true, parked: true });
    await workers.pop()!.stop();
    workers.push(await startTestWorker(options));
    await waitFor('the new worker to answer the state query', async () => (await run.state()).parked);
    expect(await run.state()).toMatchObject({ paused: true, parked: true, currentSubAgent: 'B', pausedBy: 'ops' });

    expect(await run.resume({ reason: 'deployed', by: 'ops' })).toEqual({ paused: false, parked: false });
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B on the new worker' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
    expect(
      events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => [e.type, e.data]),
    ).toEqual([
      ['RUN_PAUSED', { reason: 'deploy', by: 'ops' }],
      ['RUN_RESUMED', { reason: 'deployed', by: 'ops' }],
    ]);
  });
});
