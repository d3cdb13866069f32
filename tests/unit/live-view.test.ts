// The terminal view says why a run waits (a model outage, a spent budget), what a run cost, and when its conversation
// was compacted.
import { LiveView } from '../../cli/live-view';
import { typedEvent, type WireEvent } from '../../common';

const base = { runId: 'r', rootRunId: 'r', agent: 'coder', depth: 0, offset: 0, timestamp: 1_000 } as const;

function render(event: Partial<WireEvent>): string {
  let out = '';
  const view = new LiveView((text) => (out += text));
  view.handle(typedEvent({ ...base, ...event } as WireEvent));
  view.close();
  return out;
}

describe('LiveView', () => {
  it('shows a model outage with its attempt, reason and next try', () => {
    expect(
      render({
        type: 'MODEL_UNAVAILABLE',
        attempt: 4,
        data: { reason: 'HTTP 503 from the model', nextAttemptAt: 9_000 },
      }),
    ).toBe('  ⚠ model unavailable (attempt 4): HTTP 503 from the model; next try in 8 s\n');
  });

  it('shows a compaction with what it saved', () => {
    expect(
      render({ type: 'CONTEXT_COMPACTED', data: { items: [{}, {}], bytesBefore: 800_000, bytesAfter: 500_000 } }),
    ).toBe('  ⇣ conversation compacted: 2 older parts replaced by references (800000 → 500000 bytes)\n');
  });

  it('shows a pause for a spent budget with its limit and spend, and what a run cost', () => {
    expect(
      render({
        type: 'RUN_PAUSED',
        data: { reason: 'budget', by: 'agio', budget: { kind: 'run', limitUsd: 0.05, spentUsd: 0.063 } },
      }),
    ).toBe("  ⏸ coder paused: the run tree's budget is spent: $0.063 of $0.050\n");
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    expect(render({ type: 'RUN_COMPLETED', usage: { ...usage, costUsd: 0.0634 }, data: {} })).toBe(
      '✓ coder completed (15 tokens, $0.063)\n',
    );
    expect(render({ type: 'RUN_COMPLETED', usage: { ...usage, costUnknown: true }, data: {} })).toBe(
      '✓ coder completed (15 tokens, $0 (some prices unknown))\n',
    );
  });
});
