// readEvents following a root's pushed events (the live lane): it reads a page to catch up, then takes pushed events
// in offset order (repeats dropped), fills a gap with a page, and reads a page only every safetyPollMs otherwise.
import { readEvents, type EventPages } from '../../client/event-reader';
import type { EventPush } from '../../client/pushed-events';
import type { WireEvent } from '../../common';

const event = (offset: number, type: WireEvent['type'] = 'STEP_COMPLETED'): WireEvent =>
  ({ type, offset, runId: 'r', rootRunId: 'r', depth: 0, timestamp: Date.now() }) as WireEvent;

/** A run's log that grows with `append`, read by pages (counted) and pushed to followers (unless `silently`). */
function pushingRun() {
  const log: WireEvent[] = [];
  const followers = new Set<(events: WireEvent[]) => void>();
  const pages: { count: number; read: EventPages } = {
    count: 0,
    read: async ({ after }) => {
      pages.count++;
      return {
        events: log.filter((e) => e.offset > after),
        firstOffset: 0,
        lastOffset: log.length - 1,
        ended: log.some((e) => e.type === 'RUN_COMPLETED'),
        pushed: true,
      };
    },
  };
  const push: EventPush = (onEvents) => {
    followers.add(onEvents);
    return { ready: Promise.resolve(), close: () => followers.delete(onEvents) };
  };
  const append = (type?: WireEvent['type'], silently = false) => {
    const e = event(log.length, type);
    log.push(e);
    if (!silently) for (const f of followers) f([e]);
  };
  const pushAgain = (offset: number) => followers.forEach((f) => f([log[offset]]));
  return { pages, push, append, pushAgain };
}

async function collect(gen: AsyncGenerator<WireEvent>): Promise<number[]> {
  const offsets: number[] = [];
  for await (const e of gen) offsets.push(e.offset);
  return offsets;
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readEvents with pushed events', () => {
  it('reads one page to catch up, then takes pushed events in order, each once', async () => {
    const run = pushingRun();
    run.append('RUN_STARTED');
    const read = collect(readEvents(run.pages.read, { push: run.push, safetyPollMs: 60_000 }));
    await tick(20);
    run.append();
    run.pushAgain(1);
    run.append();
    run.pushAgain(0);
    run.append('RUN_COMPLETED');
    expect(await read).toEqual([0, 1, 2, 3]);
    expect(run.pages.count).toBe(1);
  });

  it('fills a gap in the pushed offsets with a page', async () => {
    const run = pushingRun();
    const read = collect(readEvents(run.pages.read, { push: run.push, safetyPollMs: 60_000 }));
    await tick(20);
    run.append('RUN_STARTED');
    run.append(undefined, true); // lost on the lane
    run.append();
    run.append('RUN_COMPLETED');
    expect(await read).toEqual([0, 1, 2, 3]);
    expect(run.pages.count).toBe(2);
  });

  it('reads a page every safetyPollMs when nothing is pushed (a lost last event still arrives)', async () => {
    const run = pushingRun();
    run.append('RUN_STARTED');
    const read = collect(readEvents(run.pages.read, { push: run.push, safetyPollMs: 200 }));
    await tick(20);
    run.append('RUN_COMPLETED', true);
    const startedAt = Date.now();
    expect(await read).toEqual([0, 1]);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(run.pages.count).toBe(2);
  });
});
