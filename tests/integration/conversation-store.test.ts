// A conversation past limits.inlineModelInputBytes is kept in the message store (MongoDB on the harness's FerretDB),
// never read with the conversation Query: on a worker whose bundle refuses that Query and that caches no workflow
// (every workflow task replays the run, as after a restart), a run that compacts, condenses and continues as new sends
// the model exactly what the same run sends with its conversation inline, and records far less in its history. The
// reference runs (inline) and the history-size runs take a worker that caches workflows as usual: replaying every
// task of a long run costs minutes and proves nothing more there.
import { defineAgent, type AgentRunInput } from '../../common';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { bundleWorkflows } from '../../worker/workflow-bundle-options';
import { CONDENSATION_MARKER } from '../../workflows/agent-loop/condensation';
import { testTools } from '../fixtures/test-tools';
import { callModelInputs, runToEnd, type History } from '../helpers/agent-runs';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { replayEveryExecution } from '../helpers/replay';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

const STEPS = 30;
const limits = {
  compactModelInputBytes: 10_000,
  maxModelInputBytes: 16_000,
  continueAsNewAfterModelCalls: 15,
  // A run that still read its conversation by Query fails at once instead of retrying the refused Query.
  modelMaxAttempts: 2,
};

/** A conversation named for the Query, as runs started before the store name it. */
const REF = {
  workflowId: 'run-00000000-0000-0000-0000-000000000000',
  runId: '00000000-0000-0000-0000-000000000000',
  count: 100,
};

const messagesOf = (req: RecordedRequest) => (req.body as { messages: unknown[] }).messages;

/** The requests with what differs between two runs by their ids only (run ids, tool-result refs) made equal. */
function normalised(requests: RecordedRequest[], runId: string): unknown[] {
  const json = JSON.stringify(requests.map(messagesOf)).replaceAll(runId, 'RUN');
  return JSON.parse(json.replace(/tr_[A-Za-z0-9_-]+/g, 'tr_REF'));
}

/** UTF-8 bytes of the callModel inputs a history recorded (one execution). */
function callModelInputBytes(history: History): number {
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'callModel')
    .reduce((n, a) => n + (a!.input!.payloads![0].data?.length ?? 0), 0);
}

describe('a conversation kept in the message store', () => {
  const bed = useTestBed({ worker: false, strictModel: false });
  let mongo: TestMongoStores;
  /** Caches no workflow: every workflow task replays the run. */
  let replaying: TestWorker;
  /** The same bundle, caching workflows as workers do. */
  let cached: TestWorker;

  beforeAll(async () => {
    mongo = await openMongoStores();
    const code = await bundleWorkflows(require.resolve('../fixtures/test-workflows'), {
      workflowInterceptorModules: [require.resolve('../fixtures/refuse-conversation-query')],
    });
    const options = { model: bed.model(), tools: testTools, stores: mongo.stores, workflowBundle: { code } };
    replaying = await startTestWorker({ ...options, workerOptions: { maxCachedWorkflows: 0 } });
    cached = await startTestWorker(options);
  }, 120_000);
  afterAll(async () => {
    await replaying?.stop();
    await cached?.stop();
    await mongo?.close();
  });

  /** Runs the reader on `worker` with `inlineModelInputBytes`; returns its requests, its id and its histories. */
  async function readAll(
    worker: TestWorker,
    inlineModelInputBytes: number,
    runLimits: Record<string, number> = limits,
    steps = STEPS,
    outputBytes = 3000,
  ) {
    let summaries = 0;
    bed.server.reset();
    bed.server.scriptFor(
      CONDENSATION_MARKER,
      ...Array.from({ length: 20 }, () => () => text(`summary ${++summaries}: all outputs read so far are fine`)),
    );
    bed.server.script(
      ...Array.from({ length: steps }, (_, i) =>
        toolCalls([toolCall('big_output', { bytes: outputBytes + i }, { id: `call_${i}` })]),
      ),
      text('done'),
    );
    const input: AgentRunInput = {
      agent: defineAgent({ name: 'reader', tools: ['big_output'], maxSteps: steps + 10 }),
      input: 'read everything',
      context: { limits: { ...runLimits, inlineModelInputBytes } },
    };
    const { output, handle } = await runToEnd(bed.client, worker.taskQueue, input);
    expect(bed.server.unexpected).toHaveLength(0);
    expect(output).toMatchObject({ terminationReason: 'completed', response: 'done' });
    // Every execution of the chain, oldest first.
    const executions: { startTime: Date; runId: string }[] = [];
    for await (const e of bed.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
      executions.push(e);
    executions.sort((x, y) => x.startTime.getTime() - y.startTime.getTime());
    const histories: History[] = [];
    for (const e of executions)
      histories.push(await bed.client.workflow.getHandle(handle.workflowId, e.runId).fetchHistory());
    return { requests: [...bed.server.requests], runId: handle.workflowId, histories, summaries };
  }

  it('sends the model what the inline path sends, reads no conversation by Query, and replays', async () => {
    const inline = await readAll(cached, 1_000_000);
    const stored = await readAll(replaying, 8192);

    expect(stored.summaries).toBeGreaterThanOrEqual(1);
    expect(stored.histories.length).toBeGreaterThanOrEqual(2);
    expect(stored.requests).toHaveLength(inline.requests.length);
    expect(normalised(stored.requests, stored.runId)).toEqual(normalised(inline.requests, inline.runId));

    // The store run's calls past the limit carried changes only; none named the conversation for a Query.
    const inputs = stored.histories.flatMap(callModelInputs);
    const kinds = inputs.map((i) => (i.conversation ? 'query' : i.stored ? 'stored' : 'inline'));
    expect(kinds).not.toContain('query');
    expect(kinds.filter((k) => k === 'stored').length).toBeGreaterThan(STEPS / 3);

    const bytes = (run: typeof inline) => run.histories.map(callModelInputBytes).reduce((a, b) => a + b, 0);
    const perCall = (run: typeof inline) => Math.round(bytes(run) / run.requests.length);
    console.log(
      `callModel input bytes per call, ${STEPS} steps of 3 kB outputs: inline ${perCall(inline)}, stored ${perCall(stored)}`,
    );
    expect(bytes(stored)).toBeLessThan(bytes(inline));

    expect(await replayEveryExecution(bed.client, stored.runId)).toBe(stored.histories.length);
  }, 240_000);

  it('records about one step of messages per call in the history of a 200 kB conversation, not the whole of it', async () => {
    // No compaction: the conversation grows to about 200 kB (24 outputs of 8.5 kB); the run continues as new after 12
    // calls, so the inline run's histories stay readable (under gRPC's 4 MB).
    const [steps, outputBytes, half] = [24, 8500, 12];
    const big = {
      maxModelInputBytes: 1_500_000,
      compactModelInputBytes: 1_500_000,
      continueAsNewAfterModelCalls: half,
      modelMaxAttempts: 2,
    };
    const inline = await readAll(cached, 1_000_000, big, steps, outputBytes);
    const stored = await readAll(cached, 8192, big, steps, outputBytes);
    expect(normalised(stored.requests, stored.runId)).toEqual(normalised(inline.requests, inline.runId));
    const last = (run: typeof inline) => {
      // Calls 15-24: the second execution's (12 calls each), after its first two.
      const inputs = run.histories.flatMap(callModelInputs).slice(half + 2, steps);
      const json = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
      return {
        bytes: inputs.reduce((n, i) => n + json(i), 0) / inputs.length,
        // The second execution's first call writes the conversation whole.
        whole: json(run.histories.flatMap(callModelInputs)[half]),
        // What the same inputs were with the conversation named for a Query instead (runs started before the store).
        byQuery:
          inputs.reduce((n, i) => n + json({ ...i, stored: undefined, messages: undefined, conversation: REF }), 0) /
          inputs.length,
        conversation: Buffer.byteLength(JSON.stringify(messagesOf(run.requests.at(-1)!))),
      };
    };
    const [a, b] = [last(inline), last(stored)];
    console.log(
      `a ${Math.round(b.conversation / 1000)} kB conversation, callModel input bytes per call over calls 15-24: ` +
        `inline ${Math.round(a.bytes)}, message store ${Math.round(b.bytes)}, by Query (before) ${Math.round(b.byQuery)}; ` +
        `the store's whole write after continue-as-new ${b.whole}`,
    );
    expect(b.conversation).toBeGreaterThan(190_000);
    expect(b.bytes).toBeLessThan(a.bytes / 10);
    // About one step of messages (one output, and the call that asked for it) more than naming the conversation.
    expect(b.bytes).toBeLessThan(b.byQuery + outputBytes * 1.6);
    expect(await replayEveryExecution(bed.client, stored.runId)).toBe(stored.histories.length);
  }, 240_000);
});
