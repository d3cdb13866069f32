// Conversation compaction's choices: which parts go (oldest first, large ones only, never the newest turn or what
// is already compacted), and what the model sees instead (valid JSON arguments that keep their short values).
import type { Step } from '../../common';
import {
  compactArguments,
  compactedKey,
  compactedStep,
  compactionThreshold,
  planCompaction,
  type CompactedPart,
} from '../../workflows/conversation/compaction';
import { resolveLimits } from '../../common';

const big = (n: number, c = 'x') => c.repeat(n);
const write = (index: number, content: string): Step => ({
  id: `r:${index}`,
  runId: 'r',
  index,
  role: 'assistant',
  content: null,
  toolCalls: [
    { id: `call_${index}`, name: 'file_write', arguments: JSON.stringify({ path: `f${index}.txt`, content }) },
  ],
});
const result = (index: number, content: string, metadata?: Record<string, unknown>): Step => ({
  id: `r:${index}`,
  runId: 'r',
  index,
  role: 'tool',
  toolCallId: `call_${index - 1}`,
  name: 'file_write',
  content,
  ...(metadata ? { metadata } : {}),
});
const part = (over: Partial<CompactedPart> = {}): CompactedPart => ({
  stepIndex: 1,
  toolCallId: 'call_1',
  part: 'arguments',
  bytes: 10_000,
  ref: 'tr_0123456789abcdef0123456789abcdef',
  ...over,
});

describe('compaction', () => {
  const steps: Step[] = [
    { id: 'r:0', runId: 'r', index: 0, role: 'user', content: big(50_000) },
    write(1, big(10_000)),
    result(2, big(5_000)),
    write(3, big(10_000)),
    result(4, 'ok'),
  ];

  it('chooses the oldest large parts until the excess is saved, never the user input or small parts', () => {
    expect(planCompaction(steps, 5, 1).map((c) => [c.step, c.part])).toEqual([[1, 'arguments']]);
    expect(planCompaction(steps, 5, 12_000).map((c) => [c.step, c.part])).toEqual([
      [1, 'arguments'],
      [2, 'output'],
    ]);
    expect(planCompaction(steps, 5, 1e9).map((c) => [c.step, c.part])).toEqual([
      [1, 'arguments'],
      [2, 'output'],
      [3, 'arguments'],
    ]);
  });

  it('leaves the steps from `before` on alone (the newest turn, steps not stored yet)', () => {
    expect(planCompaction(steps, 3, 1e9).map((c) => c.step)).toEqual([1, 2]);
    expect(planCompaction(steps, 1, 1e9)).toEqual([]);
  });

  it('reuses the ref of an output already stored whole, and skips what is compacted already', () => {
    const stored = [...steps.slice(0, 2), result(2, big(5_000), { ref: 'tr_ffffffffffffffffffffffffffffffff' })];
    expect(planCompaction(stored, 3, 1e9).map((c) => c.ref)).toEqual([
      undefined,
      'tr_ffffffffffffffffffffffffffffffff',
    ]);
    const once = compactedStep(steps[1], [part()], true);
    expect(planCompaction([steps[0], once], 2, 1e9)).toEqual([]);
  });

  it('keeps arguments valid JSON with their short values, and says how to read the rest back', () => {
    const args = JSON.parse(compactArguments(steps[1].toolCalls![0], part(), true));
    expect(args.path).toBe('f1.txt');
    expect(args.content).toBe(
      `[compacted to keep the conversation within the model's input limit; the call's full arguments (10000 bytes): read with get_tool_result {"ref": "tr_0123456789abcdef0123456789abcdef"}]`,
    );
    expect(
      JSON.parse(compactArguments({ id: 'c', name: 't', arguments: `{"oops": "${big(5000)}` }, part(), false))
        .compacted,
    ).toMatch(/not valid JSON \(10000 bytes\): stored as tr_/);
    expect(
      Object.keys(
        JSON.parse(
          compactArguments(
            { id: 'c', name: 't', arguments: JSON.stringify({ numbers: Array.from({ length: 3000 }, (_, i) => i) }) },
            part(),
            true,
          ),
        ),
      ),
    ).toEqual(['compacted']);
  });

  it('keeps the head of a compacted output and records every compacted part on the step', () => {
    const step = compactedStep(
      steps[2],
      [part({ stepIndex: 2, toolCallId: 'call_1', part: 'output', bytes: 5000 })],
      false,
    );
    expect(step.content!.startsWith(big(200) + '…\n[compacted')).toBe(true);
    expect(step.metadata?.compacted).toEqual([
      part({ stepIndex: 2, toolCallId: 'call_1', part: 'output', bytes: 5000 }),
    ]);
    expect(compactedStep(steps[3], [part()], true)).toBe(steps[3]);
  });

  it('compacts at the run limit given, else at three quarters of maxModelInputBytes; stores under a key per step and part', () => {
    expect(compactionThreshold(resolveLimits())).toBe(786_432);
    expect(compactionThreshold(resolveLimits({ compactModelInputBytes: 1000 }))).toBe(1000);
    expect(compactionThreshold({ ...resolveLimits(), maxModelInputBytes: undefined } as never)).toBeUndefined();
    expect(compactedKey({ step: 7, part: 'output', toolCallId: 'call_0' })).toBe('compacted/7/output/call_0');
  });
});
