// readEvents' polling of a quiet run, against a fake handle that answers the events query with empty pages: it
// backs off further once the run has been quiet for idleAfterMs, and a wake-up makes it poll again at once.
import type { WorkflowHandle } from '@temporalio/client';
import { readEvents } from '../../client/event-reader';

/** A handle whose events query always answers an empty page, recording when it was asked. */
function quietHandle(): { handle: WorkflowHandle; queries: number[] } {
  const queries: number[] = [];
  const handle = {
    query: async () => {
      queries.push(Date.now());
      return { events: [], firstOffset: 0, lastOffset: -1, ended: false };
    },
  } as unknown as WorkflowHandle;
  return { handle, queries };
}

/** Reads until `ms` have passed (the generator never yields on a quiet run), then stops the reader. */
async function readFor(ms: number, handle: WorkflowHandle, opts: Parameters<typeof readEvents>[1] = {}): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  for await (const event of readEvents(handle, { ...opts, signal: abort.signal })) throw new Error(`unexpected event ${event.type}`);
  clearTimeout(timer);
}

describe('readEvents on a quiet run', () => {
  it('polls at most every maxPollMs at first, then at idleMaxPollMs once the run has been quiet for idleAfterMs', async () => {
    const { handle, queries } = quietHandle();
    await readFor(1500, handle, { minPollMs: 10, maxPollMs: 40, idleAfterMs: 300, idleMaxPollMs: 400 });

    const gaps = queries.slice(1).map((t, i) => t - queries[i]);
    const early = gaps.filter((_, i) => queries[i + 1] - queries[0] < 250);
    const late = gaps.filter((_, i) => queries[i] - queries[0] > 700);
    expect(Math.max(...early)).toBeLessThan(200);
    expect(late.length).toBeGreaterThan(0);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(300);
  });

  it('polls again at once when woken during a long pause', async () => {
    const { handle, queries } = quietHandle();
    const wake = new EventTarget();
    const reading = readFor(1200, handle, { minPollMs: 10, maxPollMs: 1000, idleAfterMs: 0, idleMaxPollMs: 1000, wake });
    await new Promise((r) => setTimeout(r, 500));
    const before = queries.length;
    const wokenAt = Date.now();
    wake.dispatchEvent(new Event('wake'));
    await new Promise((r) => setTimeout(r, 100));

    expect(queries.length).toBeGreaterThan(before);
    expect(queries[before] - wokenAt).toBeLessThan(100);
    await reading;
  });
});
