// The AG-UI endpoint as `agio serve` runs it, with a live lane (the in-process one): a model call's text reaches the
// real @ag-ui/client HttpAgent as the model streams it (several TEXT_MESSAGE_CONTENT well before the step commits), a
// tool call's arguments too (TOOL_CALL_ARGS in pieces), and each arrives exactly once when the committed step follows;
// a thread whose run waits on an interrupt refuses a new message, and new runs count against the running-runs quota.
import type { BaseEvent } from '@ag-ui/client';
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { InProcessLane } from '../../live/in-process-lane';
import { agioRunIdOf } from '../../protocols/ag-ui/run-input';
import { testTools } from '../fixtures/test-tools';
import { agUiAgent, readRaw, runRecorded } from '../helpers/ag-ui-client';
import { askingAgent, keyOf } from '../helpers/approvals';
import { useTestBed } from '../helpers/test-bed';

// Tenants of this file's own: the running-runs quota counts a tenant's runs in the whole Temporal namespace.
const TOKEN = 'agui-live-token';
/** Another tenant: agui-live is at its running-runs quota once the interrupt test has run. */
const OPS_TOKEN = 'agui-ops-token';
const asker = askingAgent('agui-asker');
const pausable = defineAgent({ name: 'agui-pausable', instructions: 'You are agui-pausable.', tools: ['echo'] });
const streamer = defineAgent({ name: 'agui-streamer', instructions: 'You are agui-streamer.', tools: ['echo'] });
const ECHOED = 'a tool argument long enough to come in several pieces';
const ANSWER = 'The answer is forty-two, counted twice and checked against the ledger.';

describe('AG-UI endpoint with a live lane', () => {
  const lane = new InProcessLane();
  const bed = useTestBed({
    tools: testTools,
    agents: [streamer, asker, pausable],
    workerOptions: { liveLane: lane },
    bridge: {
      liveLane: lane,
      tokens: `${TOKEN}:agui-live:agui-user,${OPS_TOKEN}:pausers:agui-ops`,
      maxRunningRunsPerTenant: 1,
    },
  });

  it("streams a tool call's arguments and the text as the model writes them, and sends each exactly once", async () => {
    bed.server.scriptFor(
      keyOf(streamer),
      toolCalls([toolCall('echo', { text: ECHOED }, { id: 'call_echo' })], { chunkSize: 8, delayMs: 40 }),
      text(ANSWER, { chunkSize: 6, delayMs: 60 }),
    );
    const agent = agUiAgent(bed.bridge, 'agui-streamer', 'thread-live', [
      { id: 'u1', role: 'user', content: 'What is the answer?' },
    ]);
    const seen: { event: BaseEvent; at: number }[] = [];
    await agent.runAgent({ runId: 'live-1' }, { onEvent: ({ event }) => void seen.push({ event, at: Date.now() }) });

    const contents = seen.filter((s) => s.event.type === 'TEXT_MESSAGE_CONTENT');
    const end = seen.find((s) => s.event.type === 'TEXT_MESSAGE_END')!;
    // 12 chunks 60 ms apart: without the lane the committed step brings the text in one piece, at the end.
    expect(contents.length).toBeGreaterThanOrEqual(6);
    expect(end.at - contents[0].at).toBeGreaterThan(300);
    expect(contents.map((s) => (s.event as BaseEvent & { delta: string }).delta).join('')).toBe(ANSWER);
    expect(seen.filter((s) => s.event.type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    const assistant = agent.messages.filter((m) => m.role === 'assistant' && m.content);
    expect(assistant.map((m) => m.content)).toEqual([ANSWER]);
    const args = seen
      .filter((s) => s.event.type === 'TOOL_CALL_ARGS')
      .map((s) => s.event as BaseEvent & { delta: string });
    expect(args.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(args.map((a) => a.delta).join(''))).toEqual({ text: ECHOED });
    expect(seen.filter((s) => s.event.type === 'TOOL_CALL_START')).toHaveLength(1);
    expect(seen.filter((s) => s.event.type === 'TOOL_CALL_END')).toHaveLength(1);
    expect(seen.at(-1)!.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it("refuses a new message on a thread with an open interrupt (RUN_ERROR), and a new run past the tenant's quota (429)", async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'held' }, { id: 'call_held' })]));
    const holder = agUiAgent(bed.bridge, 'agui-asker', 'thread-held', [{ id: 'u1', role: 'user', content: 'Hold on' }]);
    await runRecorded(holder, { runId: 'held-1' });
    expect(holder.pendingInterrupts).toHaveLength(1); // the run waits on its approval: it is running

    const url = `${bed.bridge.url}/ag-ui/agents/agui-asker`;
    const input = (threadId: string, runId: string) => ({
      threadId,
      runId,
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      messages: [{ id: 'u1', role: 'user', content: 'One more' }],
    });
    const refused = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(input('thread-other', 'other-1')),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ error: { code: 'quota_exceeded', quota: 'maxRunningRunsPerTenant' } });
    const other = agUiAgent(bed.bridge, 'agui-asker', 'thread-other', [
      { id: 'u1', role: 'user', content: 'One more' },
    ]);
    await expect(other.runAgent({ runId: 'other-2' })).rejects.toThrow(/429/);
    // Another client on the interrupted thread sends a new message instead of a resume: AG-UI says RUN_ERROR.
    const tab = agUiAgent(bed.bridge, 'agui-asker', 'thread-held', [
      { id: 'u9', role: 'user', content: 'Ignore that' },
    ]);
    const errors: BaseEvent[] = [];
    await tab
      .runAgent({ runId: 'held-2' }, { onRunErrorEvent: ({ event }) => void errors.push(event) })
      .catch(() => undefined);
    expect(errors).toEqual([expect.objectContaining({ code: 'pending_interrupts' })]);
    // The running run itself is still followed (no new run): the same input again replays its stream.
    const again = await readRaw(url, TOKEN, input('thread-held', 'held-1'));
    expect(again.status).toBe(200);
    expect(again.frames.at(-1)!.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
  });

  it('ends the AG-UI run with an agio:run_paused interrupt when an operator pauses the run; resolving it resumes', async () => {
    bed.server.scriptFor(
      keyOf(pausable),
      toolCalls([toolCall('echo', { text: 'slowly' }, { id: 'call_slow' })], { chunkSize: 4, delayMs: 100 }),
      text('Resumed and done'),
    );
    const agent = agUiAgent({ ...bed.bridge, token: OPS_TOKEN }, 'agui-pausable', 'thread-paused', [
      { id: 'u1', role: 'user', content: 'Go' },
    ]);
    const run = bed.bridge.agio.getHandle(agioRunIdOf('pausers', 'thread-paused', 'paused-1'));
    let paused: Promise<unknown> | undefined;
    const first = await agent.runAgent(
      { runId: 'paused-1' },
      { onToolCallStartEvent: () => void (paused ??= run.pause({ by: 'ops', reason: 'maintenance' })) },
    );
    await paused;
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({ reason: 'agio:run_paused', message: expect.stringContaining('by ops (maintenance)') }),
    ]);
    expect(first.result).toBeUndefined();
    const [interrupt] = agent.pendingInterrupts;
    const resumed = await agent.runAgent({
      runId: 'paused-2',
      resume: [{ interruptId: interrupt.id, status: 'resolved' }],
    });
    expect(resumed.result).toBe('Resumed and done');
    expect(agent.pendingInterrupts).toEqual([]);
  });
});
