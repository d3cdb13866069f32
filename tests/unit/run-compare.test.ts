// The comparison of two runs (common/run-compare.ts): steps paired by index, the first difference and its reason,
// tool calls compared by tool and arguments (never by call id), long text cut, and b's totals minus a's.
import { COMPARE_TEXT_CHARS, compareRuns, type ComparedRunInput } from '../../common/run-compare';
import type { Step } from '../../common/steps';

const step = (index: number, fields: Partial<Step>): Step => ({
  id: `r:${index}`,
  runId: 'r',
  index,
  role: 'assistant',
  content: null,
  ...fields,
});
const usage = (totalTokens: number, costUsd?: number) => ({
  promptTokens: totalTokens,
  completionTokens: 0,
  totalTokens,
  ...(costUsd !== undefined ? { costUsd } : {}),
});
const run = (runId: string, steps: Step[], extra: Partial<ComparedRunInput> = {}): ComparedRunInput => ({
  runId,
  status: 'completed',
  startTime: '2026-11-26T04:00:00.000Z',
  closeTime: '2026-11-26T04:00:10.000Z',
  steps,
  ...extra,
});
const common = [
  step(0, { role: 'user', content: 'hi' }),
  step(1, { toolCalls: [{ id: 'call_a', name: 'lookup', arguments: '{"q":1}' }], usage: usage(10, 0.01) }),
];

describe('compareRuns', () => {
  it('finds no divergence when the steps differ only in tool call ids', () => {
    const b = [common[0], step(1, { toolCalls: [{ id: 'call_zz', name: 'lookup', arguments: '{"q":1}' }] })];
    const c = compareRuns(run('a', common), run('b', b));
    expect(c.divergence).toBeUndefined();
    expect(c.steps.map((s) => s.same)).toEqual([true, true]);
  });

  it('names the first step that differs and why', () => {
    const b = [common[0], step(1, { toolCalls: [{ id: 'x', name: 'lookup', arguments: '{"q":2}' }] }), step(2, {})];
    const c = compareRuns(run('a', [...common, step(2, { content: 'done' })]), run('b', b));
    expect(c.divergence).toMatchObject({ index: 1, reason: 'tool_calls' });
    expect(c.divergence?.b?.toolCalls).toEqual([{ name: 'lookup', arguments: '{"q":2}' }]);
    expect(c.steps.map((s) => s.same)).toEqual([true, false, false]);
  });

  it('says a step is missing when one run stopped earlier, and pairs steps by their index', () => {
    const c = compareRuns(run('a', common), run('b', [common[1]], { status: 'failed', error: { message: 'x' } }));
    expect(c.divergence).toMatchObject({ index: 0, reason: 'missing' });
    expect(c.divergence?.b).toBeUndefined();
    expect(c.steps[1]).toMatchObject({ index: 1, same: true });
    expect(c.b.error).toEqual({ message: 'x' });
  });

  it('tells a tool result that errored from one that did not', () => {
    const ok = step(2, { role: 'tool', name: 'lookup', content: 'x' });
    const c = compareRuns(run('a', [...common, ok]), run('b', [...common, { ...ok, isError: true }]));
    expect(c.divergence).toMatchObject({ index: 2, reason: 'error' });
  });

  it('sums tokens and cost from the steps unless the run reported its usage, and answers b minus a', () => {
    const b = run('b', [...common, step(2, { content: 'more', usage: usage(5, 0.005) })], {
      closeTime: '2026-11-26T04:00:04.000Z',
    });
    const c = compareRuns(run('a', common, { usage: usage(100, 0.1) }), b);
    expect(c.a.usage.totalTokens).toBe(100);
    expect(c.b.usage).toMatchObject({ totalTokens: 15 });
    expect(c.delta).toMatchObject({ steps: 1, toolCalls: 0, totalTokens: -85, durationMs: -6000 });
    expect(c.delta.costUsd).toBeCloseTo(-0.085);
    expect(c.a).toMatchObject({ steps: 2, toolCalls: 1, durationMs: 10_000 });
  });

  it('cuts long contents and outputs, comparing the whole text', () => {
    const long = 'x'.repeat(COMPARE_TEXT_CHARS + 10);
    const c = compareRuns(
      run('a', [step(0, { content: long })], { output: long }),
      run('b', [step(0, { content: `${long}y` })]),
    );
    expect(c.divergence).toMatchObject({ index: 0, reason: 'content' });
    expect(c.steps[0].a).toMatchObject({ contentTruncated: true });
    expect(c.steps[0].a?.content).toHaveLength(COMPARE_TEXT_CHARS);
    expect(c.a).toMatchObject({ outputTruncated: true });
  });
});
