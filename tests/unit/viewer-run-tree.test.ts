// The viewer's fold of a run's stream into a tree: nesting, streaming text, retries, approvals, pause state, usage,
// and the bookkeeping a resumed stream relies on (repeats dropped, holes counted).
import { EventType, type WireEvent } from '../../common';
import { EVENT_TYPES } from '../../common/event-types';
import { applyEvent, emptyTree, pendingApprovals, treeUsage, type RunTree } from '../../ui/src/run-tree';

const ROOT = 'run-1';
const CHILD = 'run-1/tool/call_1';

/** Builds the events of one stream with consecutive offsets (deltas take the last offset and their own seq). */
function stream() {
  let offset = -1;
  let seq = -1;
  const events: WireEvent[] = [];
  const base = (runId: string) =>
    runId === ROOT
      ? { runId, rootRunId: ROOT, agent: 'lead', depth: 0 }
      : {
          runId,
          rootRunId: ROOT,
          parentRunId: ROOT,
          agent: 'coder',
          depth: 1,
          nestingType: 'agent_tool' as const,
          toolCallId: 'call_1',
        };
  return {
    events,
    durable(runId: string, type: EventType, extra: Partial<WireEvent> = {}) {
      events.push({ ...base(runId), type, timestamp: 1000 + events.length, offset: ++offset, ...extra } as WireEvent);
      return this;
    },
    delta(runId: string, stepId: string, content: string, attempt = 1) {
      events.push({
        ...base(runId),
        type: 'STEP_DELTA',
        stepId,
        attempt,
        delta: { content },
        timestamp: 1000 + events.length,
        offset,
        seq: ++seq,
      } as WireEvent);
      return this;
    },
  };
}

const step = (
  runId: string,
  index: number,
  role: 'system' | 'user' | 'assistant' | 'tool',
  extra: Record<string, unknown> = {},
) => ({
  stepId: `${runId}:${index}`,
  snapshot: { id: `${runId}:${index}`, runId, index, role, content: null, ...extra },
});

function nestedRun() {
  const usage = (n: number) => ({ promptTokens: n, completionTokens: n, totalTokens: 2 * n });
  return stream()
    .durable(ROOT, 'RUN_STARTED', { data: { input: 'add a README' } })
    .durable(ROOT, 'STEP_COMPLETED', step(ROOT, 0, 'user', { content: 'add a README' }))
    .delta(ROOT, `${ROOT}:1`, 'Dele')
    .delta(ROOT, `${ROOT}:1`, 'gating')
    .durable(
      ROOT,
      'STEP_COMPLETED',
      step(ROOT, 1, 'assistant', {
        content: 'Delegating',
        toolCalls: [{ id: 'call_1', name: 'coder', arguments: '{"task":"x"}' }],
        usage: usage(5),
      }),
    )
    .durable(CHILD, 'RUN_STARTED', { data: { input: '1 messages' } })
    .durable(
      CHILD,
      'STEP_COMPLETED',
      step(CHILD, 0, 'assistant', {
        toolCalls: [{ id: 'call_2', name: 'bash', arguments: '{"command":"ls"}' }],
        usage: usage(3),
      }),
    )
    .durable(CHILD, 'TOOL_AUTH_REQUIRED', {
      data: { toolCallId: 'call_2', tool: 'bash', args: { command: 'ls' }, reason: '"bash" requires approval' },
    });
}

describe('the viewer run tree', () => {
  test('nests an agent used as a tool under its call, with live usage for the tree', () => {
    const tree = emptyTree();
    for (const e of nestedRun().events) applyEvent(tree, e, String(e.offset));
    expect(tree.rootRunId).toBe(ROOT);
    const call = tree.runs[ROOT].steps.find((s) => s.index === 1)!.toolCalls[0];
    expect(call).toMatchObject({ name: 'coder', childRunId: CHILD, status: 'running' });
    expect(tree.runs[ROOT].children).toEqual([CHILD]);
    expect(tree.runs[CHILD].steps[0].toolCalls[0]).toMatchObject({ name: 'bash', status: 'waiting_approval' });
    expect(treeUsage(tree, ROOT).totalTokens).toBe(16);
    expect(pendingApprovals(tree)).toEqual([
      expect.objectContaining({ toolCallId: 'call_2', runId: CHILD, tool: 'bash', args: { command: 'ls' } }),
    ]);
  });

  test("an approval escalated at its expiry takes the expiry's new binding and role", () => {
    const s = nestedRun().durable(CHILD, 'TOOL_AUTH_EXPIRED', {
      data: { toolCallId: 'call_2', tool: 'bash', action: 'escalate', escalatedTo: 'lead', binding: 'abc.1' },
    });
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(pendingApprovals(tree)).toEqual([
      expect.objectContaining({ toolCallId: 'call_2', binding: 'abc.1', escalatedTo: 'lead' }),
    ]);
  });

  test('an approval granted runs the call; its result and the child end close it; the end reports usage', () => {
    const s = nestedRun()
      .durable(CHILD, 'TOOL_AUTH_GRANTED', {
        data: { toolCallId: 'call_2', tool: 'bash', by: 'api:default', remember: true },
      })
      .durable(
        CHILD,
        'STEP_COMPLETED',
        step(CHILD, 1, 'tool', {
          content: 'README.md',
          toolCallId: 'call_2',
          name: 'bash',
          metrics: { durationMs: 12 },
        }),
      )
      .durable(CHILD, 'RUN_COMPLETED', {
        usage: { promptTokens: 3, completionTokens: 3, totalTokens: 6 },
        data: { response: 'done' },
      })
      .durable(ROOT, 'RUN_COMPLETED', {
        usage: { promptTokens: 9, completionTokens: 9, totalTokens: 18 },
        data: { response: 'all done', ownUsage: { promptTokens: 6, completionTokens: 6, totalTokens: 12 } },
      });
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(pendingApprovals(tree)).toEqual([]);
    expect(tree.approvals[0].decision).toMatchObject({ outcome: 'granted', by: 'api:default', remember: true });
    expect(tree.runs[CHILD].steps[0].toolCalls[0]).toMatchObject({
      status: 'done',
      result: 'README.md',
      durationMs: 12,
    });
    expect(tree.runs[CHILD].status).toBe('completed');
    expect(tree.ended).toBe(true);
    expect(treeUsage(tree, ROOT).totalTokens).toBe(18);
    expect(tree.runs[ROOT].ownUsage.totalTokens).toBe(12);
  });

  test('a denied call shows the denial', () => {
    const s = nestedRun().durable(CHILD, 'TOOL_AUTH_DENIED', {
      data: { toolCallId: 'call_2', tool: 'bash', by: 'ops', reason: 'denied', message: 'not now' },
    });
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(tree.approvals[0].decision).toMatchObject({ outcome: 'denied', message: 'not now' });
    expect(tree.runs[CHILD].steps[0].toolCalls[0].status).toBe('denied');
  });

  test('streamed text grows until the committed step replaces it; a retry discards the failed attempt', () => {
    const s = stream().durable(ROOT, 'RUN_STARTED').delta(ROOT, `${ROOT}:0`, 'Hel').delta(ROOT, `${ROOT}:0`, 'lo wor');
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(tree.runs[ROOT].steps[0]).toMatchObject({ live: true, content: 'Hello wor' });
    s.durable(ROOT, 'STEP_RETRY', { stepId: `${ROOT}:0`, attempt: 2, data: { reason: 'timeout' } })
      .delta(ROOT, `${ROOT}:0`, 'Hi', 2)
      .delta(ROOT, `${ROOT}:0`, 'late', 1);
    for (const e of s.events.slice(3)) applyEvent(tree, e);
    expect(tree.runs[ROOT].steps[0]).toMatchObject({ live: true, content: 'Hi', attempt: 2 });
    expect(tree.runs[ROOT].retries).toBe(1);
    s.durable(ROOT, 'STEP_COMPLETED', step(ROOT, 0, 'assistant', { content: 'Hi there' }));
    applyEvent(tree, s.events.at(-1)!);
    expect(tree.runs[ROOT].steps[0]).toMatchObject({ live: false, content: 'Hi there' });
  });

  test('a user message that interrupts a streaming answer: its text is dropped, late deltas too, the message shows', () => {
    const s = stream().durable(ROOT, 'RUN_STARTED').delta(ROOT, `${ROOT}:0`, 'a long ans');
    s.durable(ROOT, 'USER_MESSAGE', { data: { messageId: 'm', text: 'shorter', mode: 'interrupt', by: 'alice' } })
      .durable(ROOT, 'STEP_RETRY', { stepId: `${ROOT}:0`, attempt: 1_000_000, data: { reason: 'interrupted' } })
      .delta(ROOT, `${ROOT}:0`, 'wer', 1)
      .durable(ROOT, 'STEP_COMPLETED', step(ROOT, 0, 'user', { content: 'shorter' }))
      .delta(ROOT, `${ROOT}:0`, ' still', 1);
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(tree.runs[ROOT].steps[0]).toMatchObject({ live: false, role: 'user', content: 'shorter' });
    expect(tree.runs[ROOT].notices.map((n) => n.text)).toEqual([
      'message from alice (interrupt): shorter',
      'model call interrupted (interrupted)',
    ]);
  });

  test('a resumed stream that repeats events changes nothing and counts them; a hole is counted', () => {
    const { events } = nestedRun();
    const once = emptyTree();
    for (const e of events) applyEvent(once, e);
    const resumed: RunTree = emptyTree();
    for (const e of [...events.slice(0, 5), ...events.slice(2)]) applyEvent(resumed, e);
    expect(resumed.duplicates).toBe(3);
    expect({ ...resumed, duplicates: 0 }).toEqual(once);
    const holed = emptyTree();
    for (const e of events.filter((e) => e.offset !== 3)) applyEvent(holed, e);
    expect(holed.gaps).toBe(1);
  });

  test('nested runs with their own logs: offsets per log, repeats dropped per log, children in arrival order', () => {
    const root = { rootRunId: ROOT, agent: 'lead', depth: 0, timestamp: 1 };
    const child = () => ({ rootRunId: ROOT, parentRunId: ROOT, agent: 'coder', depth: 1, ownLog: true });
    const events = [
      { ...root, runId: ROOT, type: 'RUN_STARTED', offset: 0 },
      { ...root, ...child(), runId: CHILD, type: 'RUN_STARTED', offset: 0 },
      { ...root, ...child(), runId: 'run-1/tool/call_2', type: 'RUN_STARTED', offset: 0 },
      { ...root, ...child(), runId: CHILD, type: 'RUN_COMPLETED', offset: 1 },
      { ...root, ...child(), runId: 'run-1/tool/call_2', type: 'RUN_COMPLETED', offset: 1 },
      { ...root, runId: ROOT, type: 'RUN_COMPLETED', offset: 5 },
    ] as WireEvent[];
    const tree = emptyTree();
    for (const e of [...events, ...events.slice(1, 4)]) applyEvent(tree, e);
    expect(tree.duplicates).toBe(3);
    expect(tree.durableEvents).toBe(6);
    expect(tree.logs).toEqual({ [ROOT]: 5, [CHILD]: 1, 'run-1/tool/call_2': 1 });
    expect(tree.lastOffset).toBe(5);
    expect(tree.gaps).toBe(0); // root 0 → 5: the four pointers between are not streamed
    const holed = emptyTree();
    for (const e of events.filter((e) => !(e.runId === CHILD && e.offset === 0))) applyEvent(holed, e);
    expect(holed.gaps).toBe(1);
    expect(tree.runs[ROOT].children).toEqual([CHILD, 'run-1/tool/call_2']);
    expect(tree.runs[CHILD].status).toBe('completed');
  });

  test('pause and resume, and a workflow agent position', () => {
    const s = stream()
      .durable(ROOT, 'RUN_STARTED', { data: { kind: 'loop' } })
      .durable(ROOT, 'AGENT_STATE', { data: { timesLooped: 2, currentSubAgent: 'critic', currentSubAgentIndex: 1 } })
      .durable(ROOT, 'RUN_PAUSED', { data: { reason: 'lunch', by: 'ops' } });
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(tree.runs[ROOT]).toMatchObject({
      paused: true,
      pauseReason: 'lunch',
      kind: 'loop',
      position: { timesLooped: 2, currentSubAgent: 'critic' },
    });
    s.durable(ROOT, 'RUN_RESUMED', { data: { by: 'ops' } });
    applyEvent(tree, s.events.at(-1)!);
    expect(tree.runs[ROOT].paused).toBe(false);
  });

  test('orders children as the log started them, and adopts a run whose live deltas came before its parent', () => {
    const sub = (runId: string, agent: string, parentRunId: string | undefined, depth: number) => ({
      runId,
      rootRunId: ROOT,
      parentRunId,
      agent,
      depth,
      nestingType: 'workflow_agent' as const,
      timestamp: 1,
    });
    const delta = (runId: string) => ({ type: 'STEP_DELTA', stepId: `${runId}:0`, delta: { content: 'x' } });
    const events = [
      { ...sub(ROOT, 'room', undefined, 0), type: 'RUN_STARTED', offset: 0 },
      // Live deltas of the second sub-agent, and of a run nested in it, arrive before the log has started either.
      { ...sub(`${ROOT}/b/x`, 'inner', `${ROOT}/b`, 2), ...delta(`${ROOT}/b/x`), offset: 0, seq: 0 },
      { ...sub(`${ROOT}/b`, 'reviewer', ROOT, 1), ...delta(`${ROOT}/b`), offset: 0, seq: 1 },
      { ...sub(`${ROOT}/a`, 'drafter', ROOT, 1), type: 'RUN_STARTED', offset: 1 },
      { ...sub(`${ROOT}/b`, 'reviewer', ROOT, 1), type: 'RUN_STARTED', offset: 2 },
    ] as WireEvent[];
    const tree = emptyTree();
    for (const e of events) applyEvent(tree, e);
    expect(tree.runs[ROOT].children).toEqual([`${ROOT}/a`, `${ROOT}/b`]);
    expect(tree.runs[`${ROOT}/b`].children).toEqual([`${ROOT}/b/x`]);
  });

  test('shows an event of a type it does not know, from a newer release, as a notice, and counts it as durable', () => {
    const s = stream()
      .durable(ROOT, 'RUN_STARTED')
      .durable(ROOT, 'FUTURE_THING' as EventType, { data: { shiny: true } });
    const tree = emptyTree();
    for (const e of s.events) applyEvent(tree, e);
    expect(tree.runs[ROOT].notices).toEqual([{ type: 'FUTURE_THING', at: 1001, text: 'FUTURE_THING {"shiny":true}' }]);
    expect(tree.lastOffset).toBe(1);
  });

  test('the viewer listens for every event type the stream has', () => {
    expect([...EVENT_TYPES].sort()).toEqual([...EventType.options].sort());
  });
});
