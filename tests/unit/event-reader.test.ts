// readEvents' polling of a quiet run, against a fake handle that answers the events query with empty pages: it
// backs off further once the run has been quiet for idleAfterMs, and a wake-up makes it poll again at once.
import type { WorkflowHandle } from '@temporalio/client';
import { getEventListeners } from 'node:events';
import { queryPages, readEvents } from '../../client/event-reader';
import type { WireEvent } from '../../common';

/** A handle whose events query answers `backlog` once, then empty pages, recording when it was asked. */
function quietHandle(backlog: WireEvent[] = []): { handle: WorkflowHandle; queries: number[] } {
  const queries: number[] = [];
  const handle = {
    query: async (_query: unknown, { after }: { after: number }) => {
      queries.push(Date.now());
      const events = backlog.filter((e) => e.offset > after);
      return { events, firstOffset: 0, lastOffset: backlog.length - 1, ended: false };
    },
  } as unknown as WorkflowHandle;
  return { handle, queries };
}

/** Reads until `ms` have passed (the generator never yields on a quiet run), then stops the reader. */
async function readFor(
  ms: number,
  handle: WorkflowHandle,
  opts: Parameters<typeof readEvents>[1] = {},
  expected = 0,
): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  let seen = 0;
  for await (const event of readEvents(queryPages(handle), { ...opts, signal: abort.signal }))
    if (++seen > expected) throw new Error(`unexpected event ${event.type}`);
  clearTimeout(timer);
  expect(seen).toBe(expected);
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

  it("counts quiet time from the newest event's own timestamp: joining a run parked long ago, it backs off at once", async () => {
    const parked: WireEvent = {
      type: 'RUN_PAUSED',
      runId: 'r',
      rootRunId: 'r',
      agent: 'a',
      depth: 0,
      offset: 0,
      timestamp: Date.now() - 60_000,
    };
    const { handle, queries } = quietHandle([parked]);
    await readFor(1000, handle, { minPollMs: 10, maxPollMs: 40, idleAfterMs: 300, idleMaxPollMs: 400 }, 1);

    // Capped at maxPollMs (40 ms) the reader would ask about 25 times in a second; doubling its pause straight up to
    // idleMaxPollMs (10, 20, 40 … 320, 400 ms) it asks 8 times.
    expect(queries.length).toBeLessThanOrEqual(10);
    expect(Math.max(...queries.slice(1).map((t, i) => t - queries[i]))).toBeGreaterThanOrEqual(300);
  });

  it('polls again at once when woken during a long pause', async () => {
    const { handle, queries } = quietHandle();
    const wake = new EventTarget();
    const reading = readFor(1200, handle, {
      minPollMs: 10,
      maxPollMs: 1000,
      idleAfterMs: 0,
      idleMaxPollMs: 1000,
      wake,
    });
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

describe('queryPages with a reader signal', () => {
  it("cancels a query when the reader stops, and leaves no listener on the reader's signal per query", async () => {
    const callSignals: AbortSignal[] = [];
    const handle = {
      // Like the SDK: the call listens on the signal it is given and never removes that listener.
      client: {
        withAbortSignal: async <T>(signal: AbortSignal, fn: () => Promise<T>) => {
          callSignals.push(signal);
          signal.addEventListener('abort', () => undefined);
          return fn();
        },
      },
      query: async () => ({ events: [], firstOffset: 0, lastOffset: -1, ended: false }),
    } as unknown as WorkflowHandle;
    const reader = new AbortController();
    const pages = queryPages(handle, reader.signal);
    for (let i = 0; i < 50; i++) await pages({ after: -1, limit: 1000 });
    expect(getEventListeners(reader.signal, 'abort')).toHaveLength(0);
    // A query in flight when the reader stops is cancelled.
    let release!: () => void;
    (handle as unknown as { query: () => Promise<unknown> }).query = () => new Promise((r) => (release = () => r({})));
    const pending = pages({ after: -1, limit: 1000 });
    await new Promise((r) => setImmediate(r));
    reader.abort();
    expect(callSignals.at(-1)?.aborted).toBe(true);
    release();
    await pending;
  });
});
