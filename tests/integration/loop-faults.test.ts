// A loop survives its worker (DESIGN.md section 6, seed 001 scenario 2): a worker SIGKILLed in the middle of a
// sub-agent's model stream is replaced by a new worker that continues that same sub-agent — same child workflow,
// only the interrupted call asked again — without re-running the sub-agents already done; and a paused loop whose
// worker goes away resumes on a new worker.
import type { Client, Connection } from '@temporalio/client';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient } from '../../client/agio-client';
import { loopAgent } from '../../common';
import { ScriptedModelServer, text } from '../../worker/dev-server/scripted-model-server';
import { activities, sentMessages } from '../helpers/agent-runs';
import { childStarts, readStream } from '../helpers/nested-runs';
import { startTestWorker, testClient, uniqueId, type TestWorker } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';
import { startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { agentKey, agentOfRequest, agentStates, requestsOfAgent, subAgent, trail, waitFor } from '../helpers/workflow-agents';

describe('loop faults', () => {
  let client: Client;
  let connection: Connection;
  let server: ScriptedModelServer;
  let first: WorkerProcess | undefined;
  let workers: TestWorker[] = [];
  let workspaceRoot: string;
  const model = () => ({ baseURL: server.baseURL, apiKey: 'test', defaultModel: 'scripted' });

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    server = await ScriptedModelServer.start();
    workspaceRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-ws-loop-faults-'));
  });
  afterAll(async () => {
    await server?.close();
    await connection?.close();
    await fs.rm(workspaceRoot, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());
  afterEach(async () => {
    await stopWorkerProcess(first);
    first = undefined;
    for (const w of workers) await w.stop();
    workers = [];
    expect(server.unexpected).toEqual([]);
    expect(server.pending()).toBe(0);
  });

  it("continues B on a new worker after a SIGKILL mid-stream in iteration 2, without running A of that iteration again (seed 001, scenario 2)", async () => {
    const taskQueue = uniqueId('loop-kill');
    first = await startWorkerProcess({
      address: testEnv('temporalAddress'),
      taskQueue,
      model: model(),
      workspaceRoot,
      workflowBundle: testEnv('workflowBundle'),
      // The dead worker's sticky queue would hold the next workflow tasks for 10 s by default.
      stickyQueueScheduleToStartTimeoutMs: 1000,
    });
    server.scriptFor(agentKey('A'), text('A one'), text('A two'));
    // B's second answer streams slowly (~20 chunks 150 ms apart); the worker dies after its third chunk.
    server.scriptFor(agentKey('B'), text('B one'), text('B two, streamed slowly', { chunkSize: 1, delayMs: 150 }), text('B two, after the crash'));
    server.scriptFor(agentKey('C'), text('C one'), text('C two'));
    const killed = new Promise<void>((resolve) => {
      server.onChunk = ({ requestIndex, chunkIndex }) => {
        const request = server.requests[requestIndex];
        if (agentOfRequest(request) === 'B' && requestsOfAgent(server, 'B').indexOf(request) === 1 && chunkIndex === 2) {
          first!.kill('SIGKILL');
          resolve();
        }
      };
    });
    const loop = loopAgent({ name: 'crashy', subAgents: [subAgent('A'), subAgent('B'), subAgent('C')], maxIterations: 2 });

    const run = await new AgioClient(client, { taskQueue }).start(loop, 'go', { limits: { modelHeartbeatTimeoutMs: 2000 } });
    await killed;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'C', 'A', 'B']);
    workers.push(await startTestWorker({ model: model(), taskQueue, workerOptions: { stickyQueueScheduleToStartTimeout: 1000 } }));
    const [events, output] = await Promise.all([readStream(client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'C two' });
    // A of iteration 2 ran once; only B's interrupted call was asked again, with the same conversation.
    expect(server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'C', 'A', 'B', 'B', 'C']);
    const b = requestsOfAgent(server, 'B');
    expect(sentMessages(b[2])).toEqual(sentMessages(b[1]));
    expect(agentStates(events)).toEqual(trail([0, 1], ['A', 'B', 'C']));
    // The same child workflow continued B: each sub-agent run started once, and B's call completed on attempt 2.
    const bId = `${run.runId}/loop-1/1-B`;
    expect(childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId)).toEqual(
      trail([0, 1], ['A', 'B', 'C']).map((p, i) => `${run.runId}/loop-${p.timesLooped}/${i % 3}-${p.currentSubAgent}`),
    );
    expect(activities(await client.workflow.getHandle(bId).fetchHistory(), 'callModel').map((c) => [c.completed, c.completedAttempt])).toEqual([[true, 2]]);
    expect(events.filter((e) => e.runId === bId && e.type === 'STEP_RETRY')).toHaveLength(1);
    const bSteps = events.filter((e) => e.runId === bId && e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant');
    expect(bSteps.map((e) => e.snapshot?.content)).toEqual(['B two, after the crash']);
  });

  it('resumes a paused loop on a new worker after the old one has stopped', async () => {
    const taskQueue = uniqueId('loop-pause-stop');
    const options = { model: model(), taskQueue, workspaceRoot, workerOptions: { stickyQueueScheduleToStartTimeout: 1000 } };
    workers.push(await startTestWorker(options));
    server.scriptFor(agentKey('A'), text('A is slow to answer', { chunkSize: 1, delayMs: 150 }));
    server.scriptFor(agentKey('B'), text('B on the new worker'));
    const started = new Promise<void>((resolve) => {
      server.onChunk = () => resolve();
    });
    const loop = loopAgent({ name: 'paused-across-workers', subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 });

    const run = await new AgioClient(client, { taskQueue }).start(loop, 'go');
    await started;
    expect(await run.pause({ reason: 'deploy', by: 'ops' })).toMatchObject({ paused: true, parked: true });
    await workers.pop()!.stop();
    workers.push(await startTestWorker(options));
    await waitFor('the new worker to answer the state query', async () => (await run.state()).parked);
    expect(await run.state()).toMatchObject({ paused: true, parked: true, currentSubAgent: 'B', pausedBy: 'ops' });

    expect(await run.resume({ reason: 'deployed', by: 'ops' })).toEqual({ paused: false, parked: false });
    const [events, output] = await Promise.all([readStream(client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B on the new worker' });
    expect(server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
    expect(events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => [e.type, e.data])).toEqual([
      ['RUN_PAUSED', { reason: 'deploy', by: 'ops' }],
      ['RUN_RESUMED', { reason: 'deployed', by: 'ops' }],
    ]);
  });
});
