// The pure parts of the AG-UI adapter (protocols/ag-ui/): a run tree's events mapped to AG-UI events that the real
// client's verifier accepts (nested runs as subagents, a retried step, an interrupt that suspends a subagent), state as
// JSON Patch, interrupt ids that survive a round trip and refuse tampering, and what a RunAgentInput asks for.
import { verifyEvents, type BaseEvent } from '@ag-ui/client';
import { from, lastValueFrom, toArray, type OperatorFunction } from 'rxjs';
import type { AgioEvent } from '../../common';
import { AgUiMapper } from '../../protocols/ag-ui/event-mapper';
import { approvalInterrupt, decisionOf, interruptIdOf, parseInterruptId } from '../../protocols/ag-ui/interrupts';
import { AgUiRunInput, newUserInput, rootRunOfMessage, toolAnswersOf } from '../../protocols/ag-ui/run-input';
import { statePatch } from '../../protocols/ag-ui/state-patch';

const ROOT = 'run-root';
const CHILD = `${ROOT}/tool/1-call_c`;
let offset = 0;
/** An Agio event of `runId` (depth from its id), as the tree reader yields it. */
function ev(type: string, runId: string, extra: Record<string, unknown> = {}): AgioEvent {
  const nested = runId !== ROOT;
  return {
    type,
    runId,
    rootRunId: ROOT,
    agent: nested ? 'child' : 'root',
    depth: nested ? 1 : 0,
    ...(nested ? { parentRunId: ROOT, toolCallId: 'call_c', nestingType: 'agent_tool' } : {}),
    offset: offset++,
    timestamp: 0,
    ...extra,
  } as AgioEvent;
}
const step = (runId: string, index: number, fields: Record<string, unknown>) =>
  ev('STEP_COMPLETED', runId, {
    stepId: `${runId}:${index}`,
    snapshot: { id: `${runId}:${index}`, runId, index, role: 'assistant', content: null, ...fields },
  });

/**
 * The events through the real client's verifier (rejects an invalid sequence); its rxjs is its own copy, hence the
 * cast.
 */
const verify = verifyEvents() as unknown as OperatorFunction<BaseEvent, BaseEvent>;
const verified = (events: BaseEvent[]) => lastValueFrom(from(events).pipe(verify, toArray()));

describe('AgUiMapper', () => {
  it('maps a nested run to a subagent and a root answer streamed in deltas, as a sequence the client verifies', async () => {
    const m = new AgUiMapper({ threadId: 't', runId: 'r', rootRunId: ROOT });
    const out: BaseEvent[] = [...m.started()];
    const agio = [
      ev('RUN_STARTED', ROOT),
      step(ROOT, 1, { toolCalls: [{ id: 'call_c', name: 'child', arguments: '{"task":"x"}' }] }),
      ev('RUN_STARTED', CHILD),
      step(CHILD, 1, { content: 'child says', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } }),
      ev('RUN_COMPLETED', CHILD, { data: { response: 'child says' } }),
      ev('STEP_COMPLETED', ROOT, {
        stepId: `${ROOT}:2`,
        snapshot: { id: `${ROOT}:2`, runId: ROOT, index: 2, role: 'tool', toolCallId: 'call_c', content: 'child says' },
      }),
      ev('STEP_DELTA', ROOT, { stepId: `${ROOT}:3`, attempt: 1, delta: { content: 'Hel' } }),
      ev('STEP_RETRY', ROOT, { stepId: `${ROOT}:3`, attempt: 2, data: { reason: 'lost' } }),
      ev('STEP_DELTA', ROOT, { stepId: `${ROOT}:3`, attempt: 2, delta: { reasoningContent: 'hmm', content: 'Hello' } }),
      step(ROOT, 3, { content: 'Hello there', reasoningContent: 'hmm' }),
      ev('RUN_COMPLETED', ROOT, { data: { response: 'Hello there' } }),
    ];
    for (const e of agio) out.push(...m.map(e));

    expect(await verified(out)).toHaveLength(out.length);
    expect(out.find((e) => e.type === 'SUBAGENT_STARTED')).toMatchObject({
      subagentRunId: CHILD,
      name: 'child',
      parentToolCallId: 'call_c',
      parentMessageId: `${ROOT}:1`,
    });
    expect(out.find((e) => e.type === 'SUBAGENT_FINISHED')).toMatchObject({ result: 'child says' });
    const texts = out.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT' && !e.subagentRunId);
    expect(texts.map((e) => [e.messageId, e.delta])).toEqual([
      [`${ROOT}:3`, 'Hel'],
      [`${ROOT}:3~2`, 'Hello'],
      [`${ROOT}:3~2`, ' there'],
    ]);
    expect(out.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      result: 'Hello there',
      usage: [{ inputTokens: 3, outputTokens: 2, totalTokens: 5 }],
    });
  });

  it('ends on an approval asked in a subagent with the subagent suspended and an interrupt, and reopens it after', async () => {
    const m = new AgUiMapper({ threadId: 't', runId: 'r1', rootRunId: ROOT });
    const out: BaseEvent[] = [...m.started()];
    for (const e of [
      ev('RUN_STARTED', ROOT),
      step(ROOT, 1, { toolCalls: [{ id: 'call_c', name: 'child', arguments: '{}' }] }),
      ev('RUN_STARTED', CHILD),
      step(CHILD, 1, { toolCalls: [{ id: 'call_r', name: 'record', arguments: '{}' }] }),
      ev('TOOL_AUTH_REQUIRED', CHILD, {
        data: {
          toolCallId: 'call_r',
          tool: 'record',
          workflowId: CHILD,
          runId: CHILD,
          args: {},
          reason: 'ask',
          expiresAt: 1e12,
        },
      }),
    ])
      out.push(...m.map(e));
    const interrupts = m.pending.map((p) => approvalInterrupt(p, ROOT, '7', p.runId));
    out.push(...m.suspend(interrupts));

    expect(await verified(out)).toHaveLength(out.length);
    expect(out.at(-2)).toMatchObject({
      type: 'SUBAGENT_FINISHED',
      outcome: { type: 'suspended', interruptIds: [interrupts[0].id] },
    });
    expect(interrupts[0]).toMatchObject({
      reason: 'tool_call',
      toolCallId: 'call_r',
      expiresAt: new Date(1e12).toISOString(),
    });
    expect(m.reopened()).toEqual([expect.objectContaining({ type: 'SUBAGENT_STARTED', subagentRunId: CHILD })]);
  });
});

describe('AG-UI pieces', () => {
  it('diffs state as JSON Patch, escaping keys', () => {
    expect(statePatch({ a: 1, b: { c: 2 }, gone: true }, { a: 2, b: { c: 2, 'x/y': 3 } })).toEqual([
      { op: 'remove', path: '/gone' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'add', path: '/b/x~1y', value: 3 },
    ]);
    expect(statePatch({ a: [1] }, { a: [1] })).toEqual([]);
  });

  it('round-trips interrupt ids and refuses ids Agio did not make', () => {
    const ref = { run: ROOT, call: 'call_r', binding: 'abcd.0', at: '5~3:2' };
    expect(parseInterruptId(interruptIdOf(ref))).toEqual(ref);
    expect(parseInterruptId('int-abc')).toBeUndefined();
    expect(parseInterruptId(`agio1.${Buffer.from('{"run":"x y"}').toString('base64url')}`)).toBeUndefined();
    expect(decisionOf('resolved', { approved: true, remember: true })).toEqual({ approve: true, remember: true });
    expect(decisionOf('resolved', { approved: false, message: 'no' })).toEqual({ approve: false, message: 'no' });
    expect(decisionOf('resolved', { yes: 1 })).toBeUndefined();
    expect(decisionOf('cancelled', undefined)).toMatchObject({ approve: false });
  });

  it('reads the new turn, the tool answers and the run a message id names from a RunAgentInput', () => {
    const input = AgUiRunInput.parse({
      threadId: 't',
      runId: 'r',
      messages: [
        { id: 'u0', role: 'user', content: 'old' },
        { id: `${CHILD}:4~2`, role: 'assistant', toolCalls: [{ id: 'call_p', type: 'function', function: {} }] },
        { id: 'm1', role: 'tool', toolCallId: 'call_p', content: 'blue' },
      ],
    });
    expect(newUserInput(input)).toBeUndefined();
    expect(toolAnswersOf(input)).toEqual([{ toolCallId: 'call_p', content: 'blue', callMessageId: `${CHILD}:4~2` }]);
    expect(rootRunOfMessage(`${CHILD}:4~2`)).toBe(ROOT);
    expect(rootRunOfMessage('m1')).toBeUndefined();
    expect(
      newUserInput({
        ...input,
        messages: [...input.messages, { id: 'u2', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      }),
    ).toBe('hi');
    expect(AgUiRunInput.safeParse({ threadId: 't', runId: 'r', messages: [], surprise: 1 }).success).toBe(false);
  });
});
