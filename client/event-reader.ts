// Follows a root run's Wire a page at a time (the events Query, or another source of the same pages): ordered,
// resumable from any offset, ends after the root's terminal event. Polls adaptively: at once while events flow,
// backing off while the run is quiet, and further still once it has been quiet for a while (waiting for a human,
// paused); a wake-up cuts any pause short. With the root's events pushed on the live lane, it follows those instead
// and reads pages only to catch up: at the start, after a gap in the pushed offsets, and every `safetyPollMs`.
import type { WorkflowHandle } from '@temporalio/client';
import { endsLogOf, endsStream, type WireEvent, type EventsPage } from '../common';
import { eventsQuery } from '../common/messages';
import { PushedEvents, type EventPush } from './pushed-events';
import { isNotFound } from './errors';

/** Longest time between catch-up reads of a run whose events are pushed (a lost last event costs at most this). */
export const SAFETY_POLL_MS = 30_000;

/** Answers one page of a root run's log: its events with offset > after, at most `limit`. */
export type EventPages = (input: { after: number; limit: number }) => Promise<EventsPage>;

/**
 * Pages through the run's events Query. With `signal`, a query in flight (or waiting to be retried) is cancelled when
 * the reader stops, so nothing is left calling a connection its owner is about to close. Each query gets its own
 * signal: the SDK never removes the listener it adds to a call's signal, and a reader makes thousands of queries.
 */
export const queryPages =
  (handle: WorkflowHandle, signal?: AbortSignal): EventPages =>
  async (input) => {
    if (!signal) return handle.query(eventsQuery, input);
    const call = new AbortController();
    const cancel = () => call.abort();
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await handle.client.withAbortSignal(call.signal, () => handle.query(eventsQuery, input));
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };

/** The log no longer holds the events a reader asked for (they were dropped at continue-as-new). */
export class EventsGoneError extends Error {
  override name = 'EventsGoneError';
}

/** Options of {@link readEvents}. */
export interface ReadEventsOptions {
  /** Yield events with offset > after (default -1: from the start). */
  after?: number;
  signal?: AbortSignal;
  /** Shortest and longest pause between polls of a quiet run (default 20 and 250 ms). */
  minPollMs?: number;
  maxPollMs?: number;
  /** Longest pause once the run has had no event for `idleAfterMs` (default 1000 ms after 10 s). */
  idleMaxPollMs?: number;
  idleAfterMs?: number;
  /** Fires when something may have happened (the bridge sent the run a signal): the next poll is at once. */
  wake?: EventTarget;
  /** Called after every page read (for counters). */
  onPoll?: () => void;
  /** Called with the root's terminal event in hand, which is yielded once it resolves (see RunLogs). */
  untilClosed?: () => Promise<void>;
  /** The root's durable events as it appends them (the live lane), followed while its pages say it pushes them. */
  push?: EventPush;
  /** With `push`: longest time between page reads (default {@link SAFETY_POLL_MS}). */
  safetyPollMs?: number;
  /**
   * With `push`: settles once the run has closed. A root terminated in Temporal pushes nothing more, so the reader
   * then reads a page at once (which ends its stream) instead of at the next safety poll.
   */
  closed?: Promise<unknown>;
  /**
   * The run whose log this is, when it is a nested run's own log (see tree-reader): the log ends at that run's own
   * terminal event. Default: the root's (depth 0).
   */
  logOf?: string;
}

/**
 * Waits `ms`, or until `signal` aborts or `wake` fires; removes its listeners either way (a reader sleeps thousands of
 * times).
 */
const sleep = (ms: number, signal?: AbortSignal, wake?: EventTarget) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      wake?.removeEventListener('wake', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    wake?.addEventListener('wake', done, { once: true });
  });

/** Yields every event of the run's log after `after`, in offset order, until its run's own terminal event. */
export async function* readEvents(pages: EventPages, opts: ReadEventsOptions = {}): AsyncGenerator<WireEvent> {
  const minPoll = opts.minPollMs ?? 20;
  const maxPoll = opts.maxPollMs ?? 250;
  const idleMaxPoll = Math.max(maxPoll, opts.idleMaxPollMs ?? 1000);
  const idleAfter = opts.idleAfterMs ?? 10_000;
  let after = opts.after ?? -1;
  let pause = minPoll;
  let lastEventAt = Date.now();
  let woken = false;
  const onWake = () => (woken = true);
  opts.wake?.addEventListener('wake', onWake);
  let failures = 0;
  let gapAt = -2;
  const logOf = opts.logOf;
  const ends = (event: WireEvent) => (logOf === undefined ? endsStream(event) : endsLogOf(logOf, event));
  // Followed before the first page is read, so nothing appended after that page is missed.
  const pushed = opts.push && new PushedEvents(opts.push);
  await pushed?.ready();
  let runClosed = false;
  const closing = new AbortController();
  void opts.closed?.then(() => {
    runClosed = true;
    closing.abort();
  });
  const waitSignal = opts.signal ? AbortSignal.any([opts.signal, closing.signal]) : closing.signal;
  try {
    while (!opts.signal?.aborted) {
      let page;
      try {
        page = await pages({ after, limit: 1000 });
        opts.onPoll?.();
        failures = 0;
      } catch (err) {
        // A run whose first workflow task has not run yet, a worker restarting, a server restart: retry.
        if (++failures > 600 || isNotFound(err)) throw err;
        await sleep(Math.min(1000, 50 * failures), opts.signal);
        continue;
      }
      // A reader that asked for specific offsets must not skip silently past events the log no longer holds
      // (continue-as-new keeps only a tail); one that asked for everything starts at the oldest held event.
      if (after >= 0 && page.firstOffset > after + 1) {
        throw new EventsGoneError(
          `events ${after + 1}–${page.firstOffset - 1} of this run are no longer held; resume from offset ${page.firstOffset - 1}`,
        );
      }
      for (const event of page.events) {
        if (event.offset <= after) continue;
        after = event.offset;
        if (ends(event)) await opts.untilClosed?.();
        yield event;
        if (ends(event)) return;
      }
      if (page.ended && after >= page.lastOffset) return;
      if (pushed && page.pushed && after >= page.lastOffset && !runClosed) {
        // Take pushed events until a gap, or until the safety poll is due; then read a page again.
        const due = Date.now() + (opts.safetyPollMs ?? SAFETY_POLL_MS);
        while (!opts.signal?.aborted && !runClosed && Date.now() < due) {
          const events = pushed.take(after);
          for (const event of events) {
            after = event.offset;
            if (ends(event)) await opts.untilClosed?.();
            yield event;
            if (ends(event)) return;
          }
          if (events.length) continue; // more may have come while they were handed on
          if (pushed.gap) {
            // A gap the last page did not fill (its events are not appended yet): read again, but not in a spin.
            if (gapAt === after) await sleep(maxPoll, opts.signal);
            gapAt = after;
            break;
          }
          await pushed.wait(due - Date.now(), waitSignal);
        }
        continue;
      }
      if (page.events.length || woken) {
        // Quiet since the newest event happened, not since this reader saw it: a reader that joins a run parked
        // an hour ago backs off at once (event times are the workflow's clock; never later than now).
        if (page.events.length)
          lastEventAt = Math.min(Date.now(), page.events[page.events.length - 1].timestamp ?? Date.now());
        woken = false;
        pause = minPoll;
      } else {
        await sleep(pause, opts.signal, opts.wake);
        pause = Math.min(Date.now() - lastEventAt >= idleAfter ? idleMaxPoll : maxPoll, pause * 2);
      }
    }
  } finally {
    opts.wake?.removeEventListener('wake', onWake);
    pushed?.close();
  }
}
