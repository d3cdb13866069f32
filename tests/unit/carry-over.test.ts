// Continue-as-new input stays bounded: older tool outputs are shortened, the newest turn stays whole; the whole input
// is measured in bytes.
import { compactSteps, fittingInput } from '../../workflows/agent-loop/carry-over';
import { jsonBytes, type Step } from '../../common';

const step = (index: number, role: Step['role'], content: string): Step => ({
  id: `r:${index}`,
  runId: 'r',
  index,
  role,
  content,
});

describe('compactSteps', () => {
  it('returns the steps unchanged when they fit the budget', () => {
    const steps = [step(0, 'user', 'hi'), step(1, 'assistant', 'hello')];
    expect(compactSteps(steps, 10_000)).toBe(steps);
  });

  it('shortens older tool outputs first and keeps the newest turn whole', () => {
    const big = 'x'.repeat(50_000);
    const steps = [
      step(0, 'user', 'go'),
      step(1, 'assistant', ''),
      step(2, 'tool', big),
      step(3, 'tool', big),
      step(4, 'assistant', ''),
      step(5, 'tool', big),
    ];
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

describe('fittingInput', () => {
  it('counts the whole input in UTF-8 bytes: multibyte tool outputs that fit in characters are still shortened', () => {
    const wide = 'é'.repeat(40_000); // 40,000 characters, 80,000 bytes
    const steps = [
      step(0, 'user', 'go'),
      step(1, 'assistant', ''),
      step(2, 'tool', wide),
      step(3, 'assistant', ''),
      step(4, 'tool', 'newest'),
    ];
    const build = (carried: Step[]) => ({ input: 'x'.repeat(10_000), resume: { steps: carried } });
    expect(JSON.stringify(build(steps)).length).toBeLessThan(60_000);
    const out = fittingInput(steps, build, 60_000);
    expect(jsonBytes(out)).toBeLessThanOrEqual(60_000);
    expect(out.resume.steps[2].content).toMatch(/characters omitted when the run continued as new/);
    expect(out.resume.steps[4].content).toBe('newest');
  });

  it('fails clearly when what goes with the steps alone is over the budget', () => {
    const build = (carried: Step[]) => ({ history: 'h'.repeat(70_000), resume: { steps: carried } });
    expect(() => fittingInput([step(0, 'user', 'go')], build, 60_000)).toThrow(
      /does not fit into a continue-as-new input/,
    );
  });
});
