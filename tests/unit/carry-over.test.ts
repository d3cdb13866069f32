// Continue-as-new input stays bounded: older tool outputs are shortened, the newest turn stays whole.
import { compactSteps } from '../../workflows/carry-over';
import type { Step } from '../../common';

const step = (index: number, role: Step['role'], content: string): Step => ({ id: `r:${index}`, runId: 'r', index, role, content });

describe('compactSteps', () => {
  it('returns the steps unchanged when they fit the budget', () => {
    const steps = [step(0, 'user', 'hi'), step(1, 'assistant', 'hello')];
    expect(compactSteps(steps, 10_000)).toBe(steps);
  });

  it('shortens older tool outputs first and keeps the newest turn whole', () => {
    const big = 'x'.repeat(50_000);
    const steps = [step(0, 'user', 'go'), step(1, 'assistant', ''), step(2, 'tool', big), step(3, 'tool', big), step(4, 'assistant', ''), step(5, 'tool', big)];
    const out = compactSteps(steps, 70_000);
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(70_000);
    expect(out[2].content).toMatch(/characters omitted when the run continued as new/);
    expect(out[2].metadata).toMatchObject({ compacted: true });
    expect(out[5].content).toBe(big);
  });

  it('fails with a clear non-retryable error when even the newest turn does not fit', () => {
    const steps = [step(0, 'user', 'go'), step(1, 'assistant', ''), step(2, 'tool', 'y'.repeat(100_000))];
    expect(() => compactSteps(steps, 50_000)).toThrow(/does not fit into a continue-as-new input/);
  });
});
