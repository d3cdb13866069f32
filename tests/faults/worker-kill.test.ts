// SIGKILL of a worker process at the four places a run can be (mid tool, mid model stream, mid child workflow,
// while paused), each watched by a live SSE client of a real bridge and with a side-effect ledger tool: the run
// completes on a replacement worker, every step is committed once, each tool call's effect is booked once per
// idempotency key (retries show up only as executions), and the stream announces every lost attempt.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asTool, defineAgent, type AgentSpec, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { ledgerTool, readLedger } from '../fixtures/test-tools';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { sentMessages, slowAnswer } from '../helpers/agent-runs';
import { expectWholeStream } from '../helpers/nested-runs';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, killWorkerProcess, startTestWorkerProcess } from '../helpers/worker-process';

const TOKEN = 'test-token';
const FAST_FAILOVER = { modelHeartbeatTimeoutMs: 2000 };

/**
 * The committed conversation of one run as the stream shows it, without the system prompt: role and text (or the tools
 * it called).
 */
function transcript(events: AgioEvent[], runId: string): string[] {
  return events
    .filter((e) => e.type === 'STEP_COMPLETED' && e.runId === runId && e.snapshot!.role !== 'system')
    .map(
      (e) =>
        `${e.snapshot!.role}: ${e.snapshot!.toolCalls?.map((c) => `→ ${c.name}`).join(', ') || e.snapshot!.content}`,
    );
}

/** Every step id of the stream is committed once. */
function expectStepsOnce(events: AgioEvent[]): void {
  const ids = events.filter((e) => e.type === 'STEP_COMPLETED').map((e) => e.stepId);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('a worker SIGKILLed mid-run', () => {
  const bed = useTestBed({ worker: false });
  let dir: string;
  let ledger: string;
  let taskQueue: string;
  const workers = failoverWorkers(afterEach);
  let bridge: TestBridge | undefined;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-ledger-'));
    ledger = path.join(dir, 'ledger.jsonl');
    taskQueue = uniqueId('kill');
    workers.first = await startTestWorkerProcess({ taskQueue, model: bed.model(), ledgerFile: ledger });
    bridge = await startBridge({ client: bed.client, taskQueue });
  });
  afterEach(async () => {
    await bridge?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Kills the first worker and starts the replacement (an in-process worker with the same ledger). */
  async function failOver(): Promise<void> {
    await killWorkerProcess(workers.first!);
    workers.second = await startTestWorker({
      model: bed.model(),
      taskQueue,
      tools: [ledgerTool(ledger), ledgerTool(ledger, { quick: true })],
      workerOptions: { stickyQueueScheduleToStartTimeout: 1000 },
    });
  }

  /** Follows a run's SSE stream from the start; `onFrame` sees every frame as it arrives. */
  function follow(runId: string, onFrame?: (frame: SseEvent) => void) {
    return readSse(`${bridge!.url}/runs/${runId}/events`, { token: TOKEN, timeoutMs: 60_000, onEvent: onFrame }).then(
      ({ events, closedBy }) => {
        expect(closedBy).toBe('server');
        return agioEvents(events);
      },
    );
  }

  /** Resolves once the ledger holds the effect of `entry`. */
  async function effectBooked(entry: string): Promise<void> {
    while (!readLedger(ledger).some((l) => l.kind === 'effect' && l.entry === entry))
      await new Promise((r) => setTimeout(r, 20));
  }

  /**
   * Starts `agent` on `input` and kills its worker once the ledger has booked `entry` (the tool's effect is done,
   * its result not yet recorded); returns the run's handle and its whole stream, read across the failover.
   */
  async function killAfterEffect(agent: AgentSpec, input: string, entry: string) {
    const run = await bridge!.agio.start(agent, input, { limits: FAST_FAILOVER });
    const stream = follow(run.runId);
    await effectBooked(entry);
    await failOver();
    return { run, events: await stream };
  }

  /** Executions and effects of each entry in the ledger. */
  const ledgerCounts = () => {
    const counts: Record<string, { executions: number; effects: number; keys: number }> = {};
    const keys: Record<string, Set<string>> = {};
    for (const line of readLedger(ledger)) {
      const c = (counts[line.entry] ??= { executions: 0, effects: 0, keys: 0 });
      if (line.kind === 'execution') c.executions++;
      else c.effects++;
      (keys[line.entry] ??= new Set()).add(line.key);
      c.keys = keys[line.entry].size;
    }
    return counts;
  };

  it('mid tool: the call runs again on the new worker with the same idempotency key, and its effect is booked once', async () => {
    bed.server.script(
      toolCalls([toolCall('ledger', { entry: 'pay invoice 7', holdMs: 5000 }, { id: 'call_pay' })]),
      text('invoice 7 is paid'),
    );
    const { run, events } = await killAfterEffect(
      defineAgent({ name: 'payer', tools: ['ledger'] }),
      'pay invoice 7',
      'pay invoice 7',
    );

    expect((await run.result()).response).toBe('invoice 7 is paid');
    expect(ledgerCounts()).toEqual({ 'pay invoice 7': { executions: 2, effects: 1, keys: 1 } });
    expect(readLedger(ledger).map((l) => l.key)).toEqual([
      `${run.runId}:2:call_pay`,
      `${run.runId}:2:call_pay`,
      `${run.runId}:2:call_pay`,
    ]);
    expectWholeStream(events, run.runId);
    expectStepsOnce(events);
    expect(transcript(events, run.runId)).toEqual([
      'user: pay invoice 7',
      'assistant: → ledger',
      'tool: booked pay invoice 7',
      'assistant: invoice 7 is paid',
    ]);
    expect(events.filter((e) => e.type === 'STEP_RETRY').map((e) => [e.stepId, e.toolCallId, e.attempt])).toEqual([
      [`${run.runId}:2`, 'call_pay', 2],
    ]);
    // The model saw the tool's result once, in the final request.
    expect(bed.server.requests).toHaveLength(2);
  });

  it('mid quick tool (a local activity): the call runs again from the start on the new worker, its effect is booked once, and no STEP_RETRY is claimed', async () => {
    bed.server.script(
      toolCalls([toolCall('quick_ledger', { entry: 'read ledger 3', holdMs: 5000 }, { id: 'call_read' })]),
      text('ledger 3 is read'),
    );
    const { run, events } = await killAfterEffect(
      defineAgent({ name: 'reader', tools: ['quick_ledger'] }),
      'read ledger 3',
      'read ledger 3',
    );

    expect((await run.result()).response).toBe('ledger 3 is read');
    expect(ledgerCounts()).toEqual({ 'read ledger 3': { executions: 2, effects: 1, keys: 1 } });
    expectWholeStream(events, run.runId);
    expectStepsOnce(events);
    expect(transcript(events, run.runId)).toEqual([
      'user: read ledger 3',
      'assistant: → quick_ledger',
      'tool: booked read ledger 3',
      'assistant: ledger 3 is read',
    ]);
    // The lost attempt lived inside a workflow task and published nothing: the new worker's run of it is attempt 1.
    expect(events.filter((e) => e.type === 'STEP_RETRY')).toEqual([]);
    const history = await bed.client.workflow.getHandle(run.runId).fetchHistory();
    const scheduled = (history.events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    expect(scheduled).not.toContain('runTool');
    expect(bed.server.requests).toHaveLength(2);
  });

  it('mid model stream after a booked tool call: only the model call runs again; the tool is not executed twice', async () => {
    const slow = slowAnswer(bed.server, 'a slow confirmation that never finishes', 3);
    bed.server.script(
      toolCalls([toolCall('ledger', { entry: 'ship order 12' }, { id: 'call_ship' })]),
      slow.answer,
      text('order 12 has shipped'),
    );
    // The conversation travels through the message store: the new worker's memory stores lack it, so the run sends it
    // whole once more (ConversationNotStored), numbered after the lost attempt so readers still drop its text.
    const run = await bridge!.agio.start(defineAgent({ name: 'shipper', tools: ['ledger'] }), 'ship order 12', {
      limits: { ...FAST_FAILOVER, inlineModelInputBytes: 0 },
    });
    const stream = follow(run.runId);

    await slow.reached;
    await failOver();
    const events = await stream;

    expect((await run.result()).response).toBe('order 12 has shipped');
    expect(ledgerCounts()).toEqual({ 'ship order 12': { executions: 1, effects: 1, keys: 1 } });
    expectWholeStream(events, run.runId);
    expectStepsOnce(events);
    expect(transcript(events, run.runId)).toEqual([
      'user: ship order 12',
      'assistant: → ledger',
      'tool: booked ship order 12',
      'assistant: order 12 has shipped',
    ]);
    const retries = events.filter((e) => e.type === 'STEP_RETRY');
    expect(retries.map((e) => [e.stepId, e.attempt])).toEqual([[`${run.runId}:3`, 2]]);
    // After the retry, only attempt 2's text; the committed step holds exactly it.
    const after = events.slice(events.indexOf(retries[0]) + 1).filter((e) => e.type === 'STEP_DELTA');
    expect(after.every((e) => e.attempt === 2)).toBe(true);
    expect(after.map((e) => e.delta?.content ?? '').join('')).toBe('order 12 has shipped');
    expect(bed.server.requests).toHaveLength(3);
    expect(sentMessages(bed.server.requests[2])).toEqual(sentMessages(bed.server.requests[1]));
    expect(sentMessages(bed.server.requests[2]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('mid child workflow: the same child resumes on the new worker; its booked call is not executed again', async () => {
    const clerk: AgentSpec = defineAgent({ name: 'clerk', instructions: 'You are the clerk.', tools: ['ledger'] });
    const manager = defineAgent({
      name: 'manager',
      instructions: 'You are the manager.',
      tools: [asTool(clerk, { description: 'Books things.' })],
    });
    bed.server.scriptFor(
      'You are the manager.',
      toolCalls([toolCall('clerk', { task: 'book the refund' }, { id: 'call_clerk' })]),
      text('the refund is booked'),
    );
    const slow = slowAnswer(bed.server, 'a slow report that never finishes', 3);
    bed.server.scriptFor(
      'You are the clerk.',
      toolCalls([toolCall('ledger', { entry: 'refund 3' }, { id: 'call_refund' })]),
      slow.answer,
      text('refund 3 booked'),
    );
    const run = await bridge!.agio.start(manager, 'refund order 3', { limits: FAST_FAILOVER });
    const childRunId = `${run.runId}/tool/3-call_clerk`;
    const stream = follow(run.runId);

    await slow.reached;
    await failOver();
    const events = await stream;

    expect((await run.result()).response).toBe('the refund is booked');
    expect(ledgerCounts()).toEqual({ 'refund 3': { executions: 1, effects: 1, keys: 1 } });
    expect(readLedger(ledger)[0].key).toBe(`${childRunId}:3:call_refund`);
    expectWholeStream(events, run.runId);
    expectStepsOnce(events);
    expect(transcript(events, childRunId)).toEqual([
      expect.stringMatching(/^user: Task: book the refund\n/),
      'assistant: → ledger',
      'tool: booked refund 3',
      'assistant: refund 3 booked',
    ]);
    expect(transcript(events, run.runId)).toEqual([
      'user: refund order 3',
      'assistant: → clerk',
      'tool: refund 3 booked',
      'assistant: the refund is booked',
    ]);
    expect(events.filter((e) => e.type === 'STEP_RETRY').map((e) => [e.runId, e.depth, e.attempt])).toEqual([
      [childRunId, 1, 2],
    ]);
  });

  it('while paused: a run parked after its booked call resumes on the new worker and finishes without booking again', async () => {
    bed.server.script(
      toolCalls([toolCall('ledger', { entry: 'close account 9', holdMs: 500 }, { id: 'call_close' })]),
      text('account 9 is closed'),
    );
    const run = await bridge!.agio.start(defineAgent({ name: 'closer', tools: ['ledger'] }), 'close account 9', {
      limits: FAST_FAILOVER,
    });
    const stream = follow(run.runId);

    await effectBooked('close account 9');
    const parked = await run.pause({ reason: 'operator check' });
    expect(parked).toMatchObject({ paused: true, parked: true });
    await failOver();
    await run.resume();
    const events = await stream;

    expect((await run.result()).response).toBe('account 9 is closed');
    expect(ledgerCounts()).toEqual({ 'close account 9': { executions: 1, effects: 1, keys: 1 } });
    expectWholeStream(events, run.runId);
    expectStepsOnce(events);
    expect(transcript(events, run.runId)).toEqual([
      'user: close account 9',
      'assistant: → ledger',
      'tool: booked close account 9',
      'assistant: account 9 is closed',
    ]);
    const types = events.map((e) => e.type);
    // Paused after the tool step was committed and before the next model call; nothing was lost, so no retry.
    expect(types.indexOf('RUN_PAUSED')).toBeGreaterThan(events.findIndex((e) => e.snapshot?.role === 'tool'));
    expect(types.indexOf('RUN_RESUMED')).toBeGreaterThan(types.indexOf('RUN_PAUSED'));
    expect(types).not.toContain('STEP_RETRY');
    expect(bed.server.requests).toHaveLength(2);
  });
});
