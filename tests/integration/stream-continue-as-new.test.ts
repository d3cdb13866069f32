// Continue-as-new carries the Wire over: a run that continues as new every two model calls streams one log with
// offsets 0..n, one RUN_STARTED and one RUN_COMPLETED, read live and read again after it has finished.
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { defineAgent, type AgioEvent } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../worker/dev-server/scripted-model-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { startTestWorker, testClient, type TestWorker } from '../helpers/temporal';

const TOKEN = 'test-token';
const TURNS = 6;

/** The Temporal runs of a workflow id, first to last: from the latest run back through `continuedExecutionRunId`. */
async function runChain(client: Client, workflowId: string): Promise<{ runId: string; status: string }[]> {
  const chain: { runId: string; status: string }[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const description = await handle.describe();
    chain.unshift({ runId, status: description.status.name });
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await handle.fetchHistory();
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return chain;
}

describe('the stream of a run that continues as new', () => {
  let client: Client;
  let connection: Connection;
  let server: ScriptedModelServer;
  let worker: TestWorker;
  let bridge: TestBridge;

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    server = await ScriptedModelServer.start();
    worker = await startTestWorker({ model: { baseURL: server.baseURL, apiKey: 'test', defaultModel: 'scripted' }, tools: testTools });
    bridge = await startBridge({ client, taskQueue: worker.taskQueue });
  });
  afterAll(async () => {
    await bridge?.close();
    await worker?.stop();
    await server?.close();
    await connection?.close();
  });

  it('keeps offsets continuous across runs, with one RUN_STARTED and one RUN_COMPLETED, live and after the end', async () => {
    for (let i = 0; i < TURNS; i++) server.script(toolCalls([toolCall('record', { label: `turn ${i}` }, { id: `call_${i}` })], { chunkSize: 6, delayMs: 2 }));
    server.script(text('six turns later, done', { chunkSize: 3, delayMs: 2 }));
    const agent = defineAgent({ name: 'long-haul', tools: ['record'] });

    const run = await bridge.agio.start(agent, 'record six times', { limits: { continueAsNewAfterModelCalls: 2 } });
    const live = await readSse(`${bridge.url}/runs/${run.runId}/events`, { token: TOKEN });
    const output = await run.result();
    const after = await readSse(`${bridge.url}/runs/${run.runId}/events`, { token: TOKEN });

    expect(output.response).toBe('six turns later, done');
    expect(output.metrics).toMatchObject({ modelCalls: TURNS + 1, toolCalls: TURNS });
    // Seven model calls, two per run: the workflow continued as new three times.
    const chain = await runChain(client, run.runId);
    expect(chain.map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);
    expect(new Set(chain.map((r) => r.runId)).size).toBe(4);

    for (const read of [live, after]) {
      const events: AgioEvent[] = agioEvents(read.events);
      expect(read.closedBy).toBe('server');
      expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
      expect(events.filter((e) => e.type === 'RUN_STARTED')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'RUN_COMPLETED')).toHaveLength(1);
      expect(events[0].type).toBe('RUN_STARTED');
      expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, data: { response: 'six turns later, done' } });
      // Every committed step exactly once, in order: user, then (assistant, tool) × 6, then the answer.
      const steps = events.filter((e) => e.type === 'STEP_COMPLETED').map((e) => e.snapshot!);
      expect(steps.map((s) => s.index)).toEqual(output.steps.map((s) => s.index));
      expect(steps.map((s) => s.role)).toEqual(['user', ...Array.from({ length: TURNS }, () => ['assistant', 'tool']).flat(), 'assistant']);
    }
    expect(agioEvents(after.events)).toEqual(agioEvents(live.events));
  });
});
