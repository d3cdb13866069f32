// Starting a run by its agent's name with an AgioClient that holds no spec: the worker resolves the name from its
// agents (here an agents file), records the spec in the run's history (a local activity's result) and continues as new
// as the agent's own workflow type; an unknown name fails at once with UnknownAgent; a worker deploy changes the next
// run.
import type { Client } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient, IdempotencyConflictError } from '../../client/agio-client';
import { RunFailedError } from '../../client/errors';
import { defineAgent, ErrorType, RunSearchAttributes, type AgioEvent, type ResolveAgentOutput } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { loadAgentsFile } from '../../worker/agents-file';
import { useTestBed } from '../helpers/test-bed';
import { request } from '../helpers/bridge';
import { replayEveryExecution } from '../helpers/replay';
import { waitFor } from '../helpers/workflow-agents';
import { startTestWorker } from '../helpers/temporal';

const agentsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agio-by-name-')), 'agents.yaml');
fs.writeFileSync(
  agentsFile,
  [
    'agents:',
    '  - name: support_lead',
    '    instructions: You lead order support (from the agents file).',
    '  - name: triage',
    '    kind: sequential',
    '    subAgents: [support_lead]',
    '',
  ].join('\n'),
);

/** The first execution of a run (the agentByName one), found through the one it continued as. */
async function firstExecution(client: Client, runId: string) {
  const latest = await client.workflow.getHandle(runId).fetchHistory();
  const started = latest.events?.[0]?.workflowExecutionStartedEventAttributes;
  const first = started?.continuedExecutionRunId ?? undefined;
  return client.workflow.getHandle(runId, first).fetchHistory();
}

/** The results of the local activities a history recorded (markers), by activity type. */
function localResults(history: Awaited<ReturnType<typeof firstExecution>>): { type?: string; result: unknown }[] {
  const json = (data: Uint8Array | null | undefined) => (data ? JSON.parse(Buffer.from(data).toString()) : undefined);
  return (history.events ?? []).flatMap((e) => {
    const details = e.markerRecordedEventAttributes?.details;
    if (!details) return [];
    const info = json(details.data?.payloads?.[0]?.data) as { activity_type?: string } | undefined;
    return [{ type: info?.activity_type, result: json(details.result?.payloads?.[0]?.data) }];
  });
}

async function collect(events: AsyncIterable<AgioEvent>): Promise<AgioEvent[]> {
  const out: AgioEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('start by name', () => {
  // The bridge holds no agents: POST /runs starts what it does not hold by name.
  const bed = useTestBed({
    workerOptions: { agents: loadAgentsFile(agentsFile).agents },
    bridge: { tokens: 'shop-token:shop' },
  });
  /** A backend's client: Temporal and a task queue, no agents. */
  const backend = () => new AgioClient(bed.client, { taskQueue: bed.worker.taskQueue });

  it('runs an agents-file agent started by name from a client without its spec, and records the spec in history', async () => {
    bed.server.script(text('order 42 is on its way'));

    const run = await backend().start('support_lead', 'where is order 42?', {
      tenant: 'shop',
      modelSettings: { temperature: 0.2 },
      limits: { maxSteps: 7 },
    });
    const output = await run.result();

    expect(output.response).toBe('order 42 is on its way');
    expect(bed.server.requests[0].body.messages[0]).toEqual({
      role: 'system',
      content: 'You lead order support (from the agents file).',
    });
    expect(bed.server.requests[0].body.temperature).toBe(0.2);
    const resolved = localResults(await firstExecution(bed.client, run.runId)).filter((m) => m.type === 'resolveAgent');
    expect(resolved).toHaveLength(1);
    const answer = resolved[0].result as ResolveAgentOutput;
    expect(answer).toMatchObject({
      found: true,
      agent: {
        name: 'support_lead',
        instructions: 'You lead order support (from the agents file).',
        modelSettings: { temperature: 0.2 },
      },
      limits: { maxSteps: 7 },
    });
    // One run, one workflow id: Temporal shows the agent's own type, and the agent's name from the start.
    const description = await bed.client.workflow.getHandle(run.runId).describe();
    expect(description.type).toBe('agentRun');
    expect(description.memo).toMatchObject({ tenant: 'shop', agent: 'support_lead' });
    expect(description.typedSearchAttributes.get(RunSearchAttributes.agent)).toBe('support_lead');
    // Both executions (the name resolved, then the agent's run) replay on this code.
    await waitFor(
      'both executions listed and replayed',
      async () => (await replayEveryExecution(bed.client, run.runId)) === 2,
    );
  });

  it('streams a workflow agent started by name from RUN_STARTED to RUN_COMPLETED, as the right workflow type', async () => {
    bed.server.script(text('triaged'));

    const run = await backend().start('triage', 'a parcel is late');
    const events = await collect(run.stream());

    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', agent: 'triage', offset: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', data: { response: 'triaged' } });
    expect((await bed.client.workflow.getHandle(run.runId).describe()).type).toBe('sequentialAgentRun');
  });

  it('fails a run of an unknown name at once with UnknownAgent, naming no other agent, and ends its stream', async () => {
    const run = await backend().start('support_leed', 'hello');

    const events = await collect(run.stream());
    const failure = await run.result().then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(events.map((e) => e.type)).toEqual(['RUN_FAILED']);
    expect(events[0].data).toMatchObject({ error: { type: ErrorType.UnknownAgent } });
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as RunFailedError).type).toBe(ErrorType.UnknownAgent);
    const cause = (failure as RunFailedError).cause as { type?: string; nonRetryable?: boolean; message: string };
    expect(cause).toMatchObject({ type: ErrorType.UnknownAgent, nonRetryable: true });
    expect(cause.message).toContain('unknown agent "support_leed"');
    expect(cause.message).not.toMatch(/support_lead|triage/);
    expect(bed.server.requests).toHaveLength(0);
    expect(await replayEveryExecution(bed.client, run.runId)).toBe(1);
  });

  it('a repeated start by name under one run id returns that run, and another request under it is refused', async () => {
    bed.server.script(text('once'));
    const runId = `by-name-${Date.now()}`;

    const first = await backend().start('support_lead', 'once', { runId });
    await first.result();
    const again = await backend().start('support_lead', 'once', { runId });

    expect([first.created, again.created]).toEqual([true, false]);
    await expect(backend().start('support_lead', 'another', { runId })).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
  });

  it("fails a run by name whose input is over the agent's resolved maxModelInputBytes before any model call", async () => {
    const run = await backend().start('support_lead', 'x'.repeat(2000), { limits: { maxModelInputBytes: 1000 } });

    await expect(run.result()).rejects.toMatchObject({ cause: { type: ErrorType.ModelInputTooLarge } });
  });

  it("POST /runs starts an agent only the worker holds, and the worker refuses limits above the agent's own", async () => {
    bed.server.script(text('via the bridge'));
    const post = (body: unknown) => request(`${bed.bridge.url}/runs`, { token: 'shop-token', body });

    const started = await post({ agent: 'support_lead', input: 'hi', limits: { maxSteps: 5 } });
    const raised = await post({ agent: 'support_lead', input: 'hi', limits: { maxSteps: 500 } });

    expect(started.status).toBe(201);
    expect((await bed.agio.getHandle(started.body.runId).result()).response).toBe('via the bridge');
    expect(raised.status).toBe(201);
    await expect(bed.agio.getHandle(raised.body.runId).result()).rejects.toMatchObject({
      cause: { type: ErrorType.LimitAboveAgent, message: expect.stringContaining('limits.maxSteps: 500 is above') },
    });
  });

  it('a worker deploy with changed instructions changes the next run started by name', async () => {
    const base = defineAgent({ name: 'support_lead', instructions: 'version one' });
    const deploy = (instructions: string) =>
      startTestWorker({
        model: bed.model(),
        taskQueue,
        agents: [{ ...base, instructions }],
      });
    const taskQueue = `by-name-deploy-${Date.now()}`;
    const client = new AgioClient(bed.client, { taskQueue });
    bed.server.script(text('one'), text('two'));

    const first = await deploy('version one');
    await (await client.start('support_lead', 'hi')).result();
    await first.stop();
    const second = await deploy('version two');
    await (await client.start('support_lead', 'hi')).result().finally(() => second.stop());

    expect(bed.server.requests.map((r) => r.body.messages[0].content)).toEqual(['version one', 'version two']);
  });
});
