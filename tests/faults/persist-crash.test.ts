// Steps are persisted once per id even when a worker process dies around the write (MongoDB stores shared by a
// worker process and its replacement): SIGKILLed right after a turn was stored by the model call it rides on,
// before that call reached the model (so the call, and the write, run again on the next worker); and SIGKILLed
// mid-stream of the model call after a persisted tool turn. Either way the run's steps are stored with indexes
// 0..n-1, each exactly once.
import type { WorkflowHandle } from '@temporalio/client';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineAgent, type AgentRunInput, type RunOutput } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, startRun } from '../helpers/agent-runs';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, startTestWorkerProcess, type WorkerProcessConfig } from '../helpers/worker-process';

const TENANT = 'crash-tenant';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The activity type of a local activity's marker event (undefined for any other event). */
function localActivityType(event: HistoryEvent): string | undefined {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  return data
    ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type
    : undefined;
}

/** The input of a run that must survive its worker's death (the heartbeat timeout short, to notice it soon). */
const survivingRun = (agent: AgentRunInput['agent']): AgentRunInput => ({
  agent,
  input: 'survive',
  context: { tenant: TENANT, limits: { modelHeartbeatTimeoutMs: 2000 } },
});

describe('persisted steps when a worker process is SIGKILLed', () => {
  const bed = useTestBed({ worker: false });
  const { model } = bed;
  let mongo: TestMongoStores;
  const workers = failoverWorkers(afterEach);
  let dir: string;
  const agent = defineAgent({ name: 'survivor', instructions: 'You survive crashes.', tools: ['record'] });

  beforeAll(async () => {
    mongo = await openMongoStores();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-crash-'));
  });
  afterAll(async () => {
    await mongo?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** A worker process on MongoDB stores; the dead worker's sticky queue is given up after 1 s. */
  const startFirst = (taskQueue: string, extra: Partial<WorkerProcessConfig> = {}) =>
    startTestWorkerProcess({
      taskQueue,
      model: model(),
      workspaceRoot: path.join(dir, 'workspaces'),
      tools: ['record'],
      mongoUri: mongo.uri,
      ...extra,
    });

  /** The run's step documents as stored (every field), straight from the collection. */
  const storedStepDocs = (runId: string) =>
    mongo.client.db(mongo.dbName).collection('steps').find({ tenant: TENANT, runId }).toArray();

  /** Every step of the run stored exactly once, indexes 0..n-1, equal to the steps the run returned. */
  async function expectStepsOnce(handle: WorkflowHandle, output: RunOutput): Promise<void> {
    const runId = handle.workflowId;
    const docs = await storedStepDocs(runId);
    expect(docs.map((d) => d.id).sort()).toEqual(output.steps.map((s) => s.id).sort());
    expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
    const steps = await mongo.stores.sessions.listSteps(TENANT, runId);
    expect(steps.map((s) => s.index)).toEqual(output.steps.map((_, i) => i));
    expect(steps.map((s) => s.id)).toEqual(steps.map((s) => `${runId}:${s.index}`));
    expect(steps).toEqual(JSON.parse(JSON.stringify(output.steps)));
    // The spans of those steps, once each, and the run recorded as completed.
    const trace = await mongo.stores.traces.getTrace(TENANT, runId);
    const spanIds = trace!.spans.map((s) => s.spanId);
    expect(new Set(spanIds).size).toBe(spanIds.length);
    expect(trace!.spans.map((s) => [s.kind, s.status]).sort()).toEqual([
      ['model', 'ok'],
      ['model', 'ok'],
      ['run', 'ok'],
      ['tool', 'ok'],
    ]);
  }

  it('stores a turn written just before the kill once, though the model call that wrote it runs again on the next worker', async () => {
    const taskQueue = uniqueId('persist-kill');
    const markerFile = path.join(dir, `${taskQueue}.json`);
    // The tool step has index 3 (system, user, assistant with the call, tool). The tool turn rides on the next model
    // call, which stores it before calling the model: the worker dies right after that write.
    const first = (workers.first = await startFirst(taskQueue, {
      killAfterPersistingStep: { stepIndex: 3, markerFile },
    }));
    bed.server.script(
      toolCalls([toolCall('record', { label: 'before the kill' }, { id: 'call_record' })]),
      text('finished after the kill'),
    );
    const handle = await startRun(bed.client, taskQueue, survivingRun(agent));
    const runId = handle.workflowId;

    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(JSON.parse(await fs.readFile(markerFile, 'utf8'))).toEqual([2, 3].map((i) => `${runId}:${i}`));
    // The steps are stored, but the model call that stored them never reached the model.
    expect((await storedStepDocs(runId)).map((d) => d.index).sort()).toEqual([0, 1, 2, 3]);
    expect(bed.server.requests).toHaveLength(1);

    workers.second = await startTestWorker({ model: model(), tools: testTools, taskQueue, stores: mongo.stores });
    const output = (await handle.result()) as RunOutput;

    expect(output.response).toBe('finished after the kill');
    expect(output.steps.map((s) => s.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    // The second model call ran twice (the first attempt died after its write), and wrote the same steps again.
    expect(output.steps[4].metrics?.attempt).toBe(2);
    expect(bed.server.requests).toHaveLength(2);
    const history = (await handle.fetchHistory()).events ?? [];
    expect(activities({ events: history }, 'callModel').map((a) => a.completed)).toEqual([true, true]);
    // No turn wrote its steps with a local activity of its own: only the run's end did (the final answer).
    expect(history.filter((e) => localActivityType(e) === 'persistSteps')).toHaveLength(1);
    // The handed steps name their messages in the call's inline conversation instead of repeating their content.
    const secondCall = history.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    )[1];
    const callInput = JSON.parse(
      Buffer.from(secondCall.activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString('utf8'),
    ) as { persist: { steps: Record<string, unknown>[] } };
    expect(callInput.persist.steps.map((s) => [s.index, typeof s.message, 'content' in s])).toEqual([
      [2, 'number', false],
      [3, 'number', false],
    ]);
    await expectStepsOnce(handle, output);
  });

  it('stores every step once when the worker dies in the model stream that follows a persisted tool turn', async () => {
    const taskQueue = uniqueId('stream-kill');
    const first = (workers.first = await startFirst(taskQueue));
    bed.server.script(
      toolCalls([toolCall('record', { label: 'persisted turn' }, { id: 'call_record' })]),
      // A slow stream: ~20 chunks 150 ms apart; the worker dies after the third.
      text('the final answer, streamed slowly', { chunkSize: 2, delayMs: 150 }),
      text('the final answer, from the second worker'),
    );
    const killed = new Promise<void>((resolve) => {
      bed.server.onChunk = ({ requestIndex, chunkIndex }) => {
        if (requestIndex === 1 && chunkIndex === 2) {
          first.kill('SIGKILL');
          resolve();
        }
      };
    });
    const handle = await startRun(bed.client, taskQueue, survivingRun(agent));

    await killed;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The tool turn was persisted before the model call began.
    expect((await storedStepDocs(handle.workflowId)).map((d) => d.index).sort()).toEqual([0, 1, 2, 3]);
    workers.second = await startTestWorker({ model: model(), tools: testTools, taskQueue, stores: mongo.stores });
    const output = (await handle.result()) as RunOutput;

    expect(output.response).toBe('the final answer, from the second worker');
    expect(output.steps.map((s) => s.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(output.steps[4].metrics?.attempt).toBe(2);
    await expectStepsOnce(handle, output);
  });
});
