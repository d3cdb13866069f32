// Which steps a condensation takes, and the transcript the summarising model reads.
import type { Step } from '../../common';
import {
  condensableStart,
  planCondensation,
  summaryContent,
  transcript,
} from '../../workflows/agent-loop/condensation';

const step = (index: number, role: Step['role'], extra: Partial<Step> = {}): Step => ({
  id: `r:${index}`,
  runId: 'r',
  index,
  role,
  content: null,
  ...extra,
});

/** system, user, then `turns` turns of an assistant tool call and its result. */
function conversation(turns: number): Step[] {
  const steps = [step(0, 'system', { content: 'be brief' }), step(1, 'user', { content: 'the task' })];
  for (let t = 0; t < turns; t++) {
    const i = steps.length;
    steps.push(step(i, 'assistant', { toolCalls: [{ id: `c${t}`, name: 'read', arguments: `{"n":${t}}` }] }));
    steps.push(step(i + 1, 'tool', { toolCallId: `c${t}`, name: 'read', content: `output ${t}` }));
  }
  return steps;
}

describe('condensation planning', () => {
  it('starts after the instructions and input, or at an earlier summary', () => {
    const steps = conversation(3);
    expect(condensableStart(steps)).toBe(2);
    steps[4] = step(4, 'user', {
      content: 'summary',
      metadata: { condensation: { fromStep: 2, toStep: 6, round: 1 } },
    });
    expect(condensableStart(steps)).toBe(4);
  });

  it('ends on a turn boundary once enough is saved, never past the limit', () => {
    const steps = conversation(10); // turns start at 2, 4, …, 20
    const tenBytes = () => 10;
    expect(planCondensation(steps, 2, 20, 25, tenBytes)).toBe(6); // 2 turns = 40 bytes ≥ 25
    expect(planCondensation(steps, 2, 8, 1000, tenBytes)).toBe(8); // not enough before the limit: all it may take
    expect(planCondensation(steps, 2, 2, 10, tenBytes)).toBe(2); // nothing may be taken
    // A turn is never split from its tool result.
    expect(planCondensation(steps, 2, 20, 5, tenBytes) % 2).toBe(0);
  });

  it('writes a transcript with the earlier summary first, each part cut short', () => {
    const steps = conversation(2);
    steps[3] = { ...steps[3], content: 'x'.repeat(5000) };
    steps[2] = step(2, 'user', {
      content: 'what happened before',
      metadata: { condensation: { fromStep: 2, toStep: 4, round: 1 } },
    });
    const text = transcript(steps, 2, 6);
    expect(text.startsWith('[earlier summary of steps 2–3]\nwhat happened before')).toBe(true);
    expect(text).toContain('[step 3] tool read result: xxx');
    expect(text).toContain('… [5000 chars]');
    expect(text).toContain('[step 4] assistant:  calls: read({"n":1})');
    expect(text.length).toBeLessThan(2000);
  });

  it('keeps a very long transcript to its budget, dropping the middle', () => {
    const steps = conversation(400).map((s) => (s.role === 'tool' ? { ...s, content: 'y'.repeat(600) } : s));
    const text = transcript(steps, 2, steps.length);
    expect(text.length).toBeLessThan(50_000);
    expect(text).toContain('characters of this transcript left out');
    expect(text).toContain('[step 2] assistant');
    expect(text).toContain(`[step ${steps.length - 1}] tool`);
  });

  it('says which steps a summary stands for', () => {
    expect(summaryContent({ fromStep: 2, toStep: 40, round: 1 }, 'done so far')).toMatch(
      /^\[Summary of this run's steps 2–39, .*\]\ndone so far$/s,
    );
  });
});
