// Where a retry or fork cuts the source's conversation (client/rescue-seed.ts): never between a tool call and its
// result.
import type { Step } from '../../common';
import { RescueRefusedError } from '../../client/rescue-errors';
import { forkSteps, retrySteps } from '../../client/rescue-seed';

const step = (index: number, role: Step['role'], extra: Partial<Step> = {}): Step => ({
  id: `run-a:${index}`,
  runId: 'run-a',
  index,
  role,
  content: `${role} ${index}`,
  ...extra,
});
const calls = (...ids: string[]) => ({ toolCalls: ids.map((id) => ({ id, name: 'lookup', arguments: '{}' })) });

/** system, user, assistant calling a and b, both results, assistant calling c, its result. */
const conversation: Step[] = [
  step(0, 'system'),
  step(1, 'user'),
  step(2, 'assistant', calls('a', 'b')),
  step(3, 'tool', { toolCallId: 'a', isError: true }),
  step(4, 'tool', { toolCallId: 'b' }),
  step(5, 'assistant', calls('c')),
  step(6, 'tool', { toolCallId: 'c' }),
];

const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof RescueRefusedError) return err.reason;
    throw err;
  }
  return undefined;
};

describe('retrySteps', () => {
  it('keeps every step of a conversation whose turns are complete', () => {
    expect(retrySteps(conversation)).toEqual(conversation);
  });

  it('drops a last turn whose tool calls did not all get their result', () => {
    const cut = [
      ...conversation.slice(0, 5),
      step(5, 'assistant', calls('c', 'd')),
      step(6, 'tool', { toolCallId: 'c' }),
    ];
    expect(retrySteps(cut).map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses a run with no user step to continue from', () => {
    expect(reason(() => retrySteps([step(0, 'system')]))).toBe('no_steps');
  });
});

describe('forkSteps', () => {
  it('asks an assistant step again: the steps before it only', () => {
    expect(forkSteps(conversation, 5).map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it("replaces a tool result and keeps the turn's other results", () => {
    const forked = forkSteps(conversation, 3, { toolResult: 'fixed' });
    expect(forked.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    expect(forked[3]).toEqual({
      ...step(3, 'tool', { toolCallId: 'a' }),
      content: 'fixed',
      metadata: { edited: true },
    });
    expect(forked[4]).toEqual(conversation[4]);
  });

  it('replaces a user message, or keeps it', () => {
    expect(forkSteps(conversation, 1, { userMessage: 'again' })[1].content).toBe('again');
    expect(forkSteps(conversation, 1)).toEqual(conversation.slice(0, 2));
  });

  it('refuses a step out of range and edits that do not fit the step', () => {
    expect(reason(() => forkSteps(conversation, 7))).toBe('step_out_of_range');
    expect(reason(() => forkSteps(conversation, -1))).toBe('step_out_of_range');
    expect(reason(() => forkSteps(conversation, 0))).toBe('step_mismatch');
    expect(reason(() => forkSteps(conversation, 3))).toBe('step_mismatch');
    expect(reason(() => forkSteps(conversation, 2, { toolResult: 'x' }))).toBe('step_mismatch');
    expect(reason(() => forkSteps(conversation, 3, { userMessage: 'x' }))).toBe('step_mismatch');
  });
});
