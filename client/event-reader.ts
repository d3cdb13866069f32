// Follows a root run's Wire through the events Query: ordered, resumable from any offset, ends after the
// root's terminal event. Polls adaptively: at once while events flow, backing off while the run is quiet.
import type { WorkflowHandle } from '@temporalio/client';
import { endsStream, type AgioEvent } from '../common';
import { eventsQuery } from '../workflows/messages';

/** The log no longer holds the events a reader asked for (they were dropped at continue-as-new). */
export class EventsGoneError extends Error {
  override name = 'EventsGoneError';
}

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** Yield events with offset > after (default -1: from the start). */
  after?: number;
  signal?: AbortSignal;
  /** Shortest and longest pause between polls of a quiet run. */
  minPollMs?: number;
  maxPollMs?: number;
}

/** Waits `ms` or until `signal` aborts; removes its abort listener either way (a reader sleeps thousands of times). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Yields every event of the run after `after`, in offset order, until the root's terminal event. */
export async function* readEvents(handle: WorkflowHandle, opts: ReadEventsOptions = {}): AsyncGenerator<AgioEvent> {
  const minPoll = opts.minPollMs ?? 20;
  const maxPoll = opts.maxPollMs ?? 250;
  let after = opts.after ?? -1;
  let pause = minPoll;
  let failures = 0;
  while (!opts.signal?.aborted) {
    let page;
    try {
      page = await handle.query(eventsQuery, { after, limit: 1000 });
      failures = 0;
    } catch (err) {
      // A run whose first workflow task has not run yet, a worker restarting, a server restart: retry.
      if (++failures > 600 || (err as Error).name === 'WorkflowNotFoundError') throw err;
      await sleep(Math.min(1000, 50 * failures), opts.signal);
      continue;
    }
    // A reader that asked for specific offsets must not skip silently past events the log no longer holds
    // (continue-as-new keeps only a tail); one that asked for everything starts at the oldest held event.
    if (after >= 0 && page.firstOffset > after + 1) {
      throw new EventsGoneError(`events ${after + 1}–${page.firstOffset - 1} of this run are no longer held; resume from offset ${page.firstOffset - 1}`);
    }
    for (const event of page.events) {
      if (event.offset <= after) continue;
      after = event.offset;
      yield event;
      if (endsStream(event)) return;
    }
    if (page.ended && after >= page.lastOffset) return;
    if (page.events.length) {
      pause = minPoll;
    } else {
      await sleep(pause, opts.signal);
      pause = Math.min(maxPoll, pause * 2);
    }
  }
}
