// Where a reader of a root run's log reads it from (the bridge, and RunHandle.stream). While the run is open: its events Query, answered by the worker
// that has it cached. Once it has closed: the event log the root wrote to the store as it went (when the reader
// has the stores), so a finished run is never replayed just to be read. A log that does not hold the whole rest
// (runs recorded before the log existed, workflow agents, a write that failed) falls back to the Query, which
// replays the run.
//
// A Query that reaches the server while a workflow task is in flight waits for it; when that task closes the
// run, the server then hands the Query to a worker to replay the whole run. So the reader also watches for the
// close (the same long poll `result()` makes, which costs no worker) and stops waiting for its Query when it comes.
import { QueryRejectedError, WorkflowClient, WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { endsStream, type AgioEvent, type EventsPage } from '../common';
import type { EventLogStore } from '../stores';
import { eventsQuery } from '../workflows/messages';
import { queryPages, readEvents, type EventPages, type ReadEventsOptions } from './event-reader';

const CLOSED: unique symbol = Symbol('closed');

/** One root run's log, as a reader sees it. */
export interface RunLog {
  pages: EventPages;
  /** Resolves once the run has closed for good (true), or the reader stopped first (false). */
  closed: Promise<boolean>;
}

/** What reading closed runs has cost (GET /healthz). */
export interface RunLogStats {
  /** Pages of closed runs served from the event log. */
  storedPages: number;
  /** Pages of closed runs answered by a Query, which a worker answers by replaying the run. */
  replayedPages: number;
  /** Queries the reader stopped waiting for when the run closed, which a worker answered anyway by replaying it. */
  abandonedQueries: number;
}

/** Opens root runs' logs for reading. */
export class RunLogs {
  /** Queries through this client are rejected by the server, without a worker, once the run has closed. */
  private readonly openOnly: WorkflowClient;
  readonly stats: RunLogStats = { storedPages: 0, replayedPages: 0, abandonedQueries: 0 };

  constructor(
    private readonly temporal: Client,
    private readonly log?: EventLogStore,
  ) {
    this.openOnly = new WorkflowClient({ ...temporal.workflow.options, queryRejectCondition: 'NOT_OPEN' });
  }

  /** One root run's log (in the event log, under `tenant`, which owns it), for a reader that stops with `signal`. */
  open(rootRunId: string, signal: AbortSignal, tenant?: string): RunLog {
    const open = this.openOnly.getHandle(rootRunId);
    const replayed = queryPages(this.temporal.workflow.getHandle(rootRunId));
    const closed = this.closeOf(rootRunId, signal);
    const closing: Promise<typeof CLOSED> = closed.then((isClosed) => (isClosed ? CLOSED : new Promise<never>(() => undefined)));
    let isClosed = false;
    const pages: EventPages = async (input) => {
      if (!isClosed) {
        const abandon = new AbortController();
        const query = this.openOnly.withAbortSignal(abandon.signal, () => open.query(eventsQuery, input));
        const answer = await Promise.race([query, closing]).catch((err: unknown): typeof CLOSED => {
          if (err instanceof QueryRejectedError) return CLOSED;
          throw err;
        });
        if (answer !== CLOSED) return answer;
        isClosed = true;
        abandon.abort();
        query.then(() => this.stats.abandonedQueries++, () => undefined);
      }
      const stored = this.log && tenant !== undefined ? await storedPage(this.log, tenant, rootRunId, input) : undefined;
      if (stored) this.stats.storedPages++;
      else this.stats.replayedPages++;
      return stored || replayed(input);
    };
    return { pages, closed };
  }

  /** True once the run has closed for good (after any continue-as-new); false if the reader stopped first. */
  private async closeOf(rootRunId: string, signal: AbortSignal): Promise<boolean> {
    const handle = this.temporal.workflow.getHandle(rootRunId);
    while (!signal.aborted) {
      try {
        await this.temporal.withAbortSignal(signal, () => handle.result());
        return true;
      } catch (err) {
        if (err instanceof WorkflowFailedError) return true; // failed, cancelled, terminated, timed out
        if (signal.aborted || err instanceof WorkflowNotFoundError) return false;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the server restarting: watch again
      }
    }
    return false;
  }
}

/**
 * A page of a closed run's stored log, when the store holds every event after `after` through the run's
 * terminal event (checked a page at a time: offsets without a gap, and a short page must end the stream).
 */
async function storedPage(log: EventLogStore, tenant: string, rootRunId: string, { after, limit }: { after: number; limit: number }): Promise<EventsPage | undefined> {
  const events = await log.read(tenant, rootRunId, after, limit);
  if (!events.length || events.some((e, i) => e.offset !== after + 1 + i)) return undefined;
  const ended = events.some(endsStream);
  if (!ended && events.length < limit) return undefined;
  return { events, firstOffset: after + 1, lastOffset: events[events.length - 1].offset, ended };
}

/**
 * Yields a root run's events (see {@link readEvents}) from its log, the root's terminal event once the run has
 * closed: the root adds that event to its event log after putting it on its Wire, so a client that has seen it and
 * asks for the run finds it finished.
 */
export async function* followRun(logs: RunLogs, rootRunId: string, opts: ReadEventsOptions & { tenant?: string } = {}): AsyncGenerator<AgioEvent> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const log = logs.open(rootRunId, stop.signal, opts.tenant);
    yield* readEvents(log.pages, { ...opts, signal: stop.signal, closed: log.closed });
  } finally {
    stop.abort();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
