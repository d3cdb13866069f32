// Where a reader of a root run's log reads it from (the bridge, and RunHandle.stream). While the run is open: its
// events Query, answered by the worker that has it cached. Once it has closed: the event log the root wrote to the
// store as it went (when the reader has the stores), so a finished run is never replayed just to be read. A log
// that does not hold the whole rest (runs started before their root wrote one, a write that failed) falls back to
// the Query, which replays the run.
//
// A Query that reaches the server while a workflow task is in flight waits for it; when that task closes the run,
// the server hands the Query to a worker that replays the whole run. A root therefore puts its terminal event on
// its Wire in a task that leaves the run open and closes it a task later (workflows/events/event-log.ts); a reader that
// has that event waits for the close (the long poll `result()` makes, which costs no worker) before passing it on.
// A root that closed without that event (terminated, timed out) ends its readers' streams with a synthetic one.
import { QueryRejectedError, WorkflowClient, type Client } from '@temporalio/client';
import { endsLogOf, type WireEvent, type EventBase, type EventsPage } from '../common';
import type { EventLogStore } from '../stores';
import { closingEvent, endedWith } from './closing-event';
import { queryPages, readEvents, type EventPages, type ReadEventsOptions } from './event-reader';
import type { EventPush } from './pushed-events';
import { cursorAt, type TreeCursor } from './tree-cursor';
import { readTree, type TreeEvent, type TreeLogs } from './tree-reader';

/**
 * Longest a reader waits for the run to close once it has the root's terminal event (a run slow to close does not hold
 * it long).
 */
export const CLOSE_WAIT_MS = 2000;

/**
 * How long a reader waits for events a run no longer holds (it continued as new) to reach its event log before it
 * reports them gone (EventsGoneError).
 */
export const OLDER_EVENTS_WAIT_MS = 10_000;

/** One root run's log, as a reader sees it. */
export interface RunLog {
  pages: EventPages;
  /** Resolves once the run has closed for good, after CLOSE_WAIT_MS at most, or when the reader stops. */
  untilClosed(): Promise<void>;
  /** Resolves once the run has closed for good (a long poll, which costs no worker), or when the reader stops. */
  closed(): Promise<void>;
}

/** What reading closed runs has cost (GET /healthz). */
export interface RunLogStats {
  /** Pages of closed runs served from the event log. */
  storedPages: number;
  /** Pages of closed runs answered by a Query, which a worker answers by replaying the run. */
  replayedPages: number;
}

/** Opens root runs' logs for reading. */
export class RunLogs {
  /** Queries through this client are rejected by the server, without a worker, once the run has closed. */
  private readonly openOnly: WorkflowClient;
  readonly stats: RunLogStats = { storedPages: 0, replayedPages: 0 };

  constructor(
    private readonly temporal: Client,
    private readonly log?: EventLogStore,
  ) {
    this.openOnly = new WorkflowClient({ ...temporal.workflow.options, queryRejectCondition: 'NOT_OPEN' });
  }

  /**
   * One run's log (in the event log, under `tenant`, which owns it), for a reader that stops with `signal`: a root's,
   * or a nested run's own (`base`: that run, from its start pointer, for the synthetic end of one that closed without).
   */
  open(rootRunId: string, signal: AbortSignal, tenant?: string, base?: Partial<EventBase>): RunLog {
    const open = queryPages(this.openOnly.getHandle(rootRunId), signal);
    const replayed = queryPages(this.temporal.workflow.getHandle(rootRunId), signal);
    let closed = false;
    let missingSince: number | undefined;
    // The run's own page: its events Query while it is open, else its stored log or a replay.
    const runPage: EventPages = async (input) => {
      if (!closed) {
        try {
          return await open(input);
        } catch (err) {
          if (!(err instanceof QueryRejectedError)) throw err;
          closed = true;
        }
      }
      const stored =
        this.log && tenant !== undefined ? await storedPage(this.log, tenant, rootRunId, input) : undefined;
      if (stored) this.stats.storedPages++;
      else this.stats.replayedPages++;
      const page = stored ?? (await replayed(input));
      // A short page without the root's terminal event is the whole rest of a root that closed without one
      // (terminated, timed out): it ends with a synthetic one rather than being replayed again at every poll.
      if (page.ended || page.events.length >= input.limit) return page;
      const description = await this.temporal.workflow.getHandle(rootRunId).describe();
      const closing = closingEvent(rootRunId, description, page.lastOffset + 1, base);
      // Open after all (it continued as new meanwhile): its events Query answers again.
      if (!closing) closed = false;
      return closing ? endedWith(page, closing) : page;
    };
    const earlier = earlierExecutions(this.temporal, rootRunId, signal);
    const pages: EventPages = async (input) => {
      const page = await runPage(input);
      // After continue-as-new a run holds only its newest events; older ones are in its event log, and in the
      // earlier executions of the run, which a Query still reaches (a worker replays them). (Both ways of reading the
      // run can meet this: a Query that reached it as it continued as new is rejected, and the replay that follows
      // reads the new run.) A reader without the stores (a plain AgioClient's RunHandle.stream) reads them from those
      // executions, and so does one whose log lacks them: they are gone only once neither holds them.
      if (page.firstOffset <= input.after + 1) return page;
      const stored =
        this.log && tenant !== undefined ? await olderPage(this.log, tenant, rootRunId, input, page) : undefined;
      const older = stored ?? (await earlier(input, page));
      if (older) return ((missingSince = undefined), older);
      if (!this.log || tenant === undefined) return page;
      // The log may lag (a write retried by the store calls): the reader asks again (readEvents retries a failed
      // page) for a while before it reports them gone.
      missingSince ??= Date.now();
      if (Date.now() - missingSince < OLDER_EVENTS_WAIT_MS)
        throw new Error(`events after ${input.after} of ${rootRunId} are not in its event log yet`);
      return page;
    };
    const untilClosed = async () => {
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(onAbort, CLOSE_WAIT_MS);
      try {
        await this.closeOf(rootRunId, stop.signal);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
    };
    return { pages, untilClosed, closed: () => this.closeOf(rootRunId, signal) };
  }

  /** Waits until the run has closed for good (after any continue-as-new); gives up on `signal` or an error. */
  private async closeOf(rootRunId: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const handle = this.temporal.workflow.getHandle(rootRunId);
    // A run that failed, was cancelled, terminated or timed out rejects here: it has closed too. Any other error,
    // or the reader stopping, ends the wait as well: the terminal event is passed on regardless.
    await this.temporal.withAbortSignal(signal, () => handle.result()).catch(() => undefined);
  }
}

/**
 * A page of a closed run's stored log, when the store holds every event after `after` through the run's
 * terminal event (checked a page at a time: offsets without a gap, and a short page must end the stream).
 */
async function storedPage(
  log: EventLogStore,
  tenant: string,
  rootRunId: string,
  { after, limit }: { after: number; limit: number },
): Promise<EventsPage | undefined> {
  const events = await log.read(tenant, rootRunId, after, limit);
  if (!events.length || events.some((e, i) => e.offset !== after + 1 + i)) return undefined;
  const ended = events.some((e) => endsLogOf(rootRunId, e));
  if (!ended && events.length < limit) return undefined;
  return { events, firstOffset: after + 1, lastOffset: events[events.length - 1].offset, ended };
}

/**
 * A page of the events an open run no longer holds (it continued as new), read from its event log: those after
 * `after` and before the run's oldest held event, when the log has them without a gap.
 */
async function olderPage(
  log: EventLogStore,
  tenant: string,
  rootRunId: string,
  { after, limit }: { after: number; limit: number },
  held: EventsPage,
): Promise<EventsPage | undefined> {
  const events = await log.read(tenant, rootRunId, after, Math.min(limit, held.firstOffset - 1 - after));
  if (!events.length || events.some((e, i) => e.offset !== after + 1 + i)) return undefined;
  return { events, firstOffset: after + 1, lastOffset: held.lastOffset, ended: false, pushed: held.pushed };
}

/** Most earlier executions a reader walks back through for events a run no longer holds. */
const MAX_EARLIER_EXECUTIONS = 20;

/**
 * Reads the events an open run no longer holds (those after `after` and before its oldest held event) from the earlier
 * executions of the run, newest first: each continued as new holding every event it appended, and a Query of a closed
 * execution is answered by a worker that replays it. Undefined when none of them answers with those events (one is
 * past its retention, or its worker cannot replay it).
 */
function earlierExecutions(
  temporal: Client,
  rootRunId: string,
  signal: AbortSignal,
): (input: { after: number; limit: number }, held: EventsPage) => Promise<EventsPage | undefined> {
  // Each execution's predecessor, as its first history event names it (an execution's history never changes).
  const previous = new Map<string, string | undefined>();
  const previousOf = async (executionId: string) => {
    if (!previous.has(executionId)) {
      const { history } = await temporal.workflowService.getWorkflowExecutionHistory({
        namespace: temporal.options.namespace,
        execution: { workflowId: rootRunId, runId: executionId },
        maximumPageSize: 1,
      });
      const attributes = history?.events?.[0]?.workflowExecutionStartedEventAttributes;
      previous.set(executionId, attributes?.continuedExecutionRunId || undefined);
    }
    return previous.get(executionId);
  };
  return async ({ after, limit }, held) => {
    try {
      let execution: string | undefined = (await temporal.workflow.getHandle(rootRunId).describe()).runId;
      for (let hops = 0; hops < MAX_EARLIER_EXECUTIONS; hops++) {
        execution = await previousOf(execution);
        if (!execution) return undefined;
        const read = queryPages(temporal.workflow.getHandle(rootRunId, execution), signal);
        const page = await read({ after, limit: Math.min(limit, held.firstOffset - 1 - after) });
        if (page.firstOffset > after + 1) continue; // older still: this execution holds only a tail too
        const events = page.events.filter((e) => e.offset < held.firstOffset);
        if (!events.length || events[0].offset !== after + 1) return undefined;
        return { events, firstOffset: after + 1, lastOffset: held.lastOffset, ended: false, pushed: held.pushed };
      }
    } catch (err) {
      // A reader that stops ends here too; readEvents then stops before it reads the page.
      if (signal.aborted) throw err;
    }
    return undefined;
  };
}

/** Options of {@link followTree}: those of every log's reader, and where to start. */
export type FollowTreeOptions = Omit<ReadEventsOptions, 'after' | 'push' | 'closed' | 'untilClosed' | 'logOf'> & {
  tenant?: string;
  /** The position to resume from (default: the start). */
  from?: TreeCursor;
  /** Each log's durable events as its run appends them (the live lane's followEvents, under the run's id). */
  push?: (runId: string) => EventPush | undefined;
};

/**
 * The logs of one tree over Temporal and the stores: each read as a root's is (see {@link readEvents}), ending at
 * its run's own terminal event once that run has closed.
 */
export function treeLogs(logs: RunLogs, opts: FollowTreeOptions): TreeLogs {
  return {
    read(runId, after, signal, base) {
      const log = logs.open(runId, signal, opts.tenant, base);
      const push = opts.push?.(runId);
      // A reader following pushed events learns of a close it was not pushed (terminated, timed out) from a long poll.
      const closed = push ? log.closed() : undefined;
      const { tenant: _tenant, from: _from, push: _push, ...rest } = opts;
      return readEvents(log.pages, {
        ...rest,
        after,
        signal,
        untilClosed: log.untilClosed,
        closed,
        push,
        logOf: runId,
      });
    },
    async eventAt(runId, offset, signal) {
      const page = await logs.open(runId, signal, opts.tenant).pages({ after: offset - 1, limit: 1 });
      return page.events.find((e) => e.offset === offset);
    },
  };
}

/**
 * Yields the events of the tree rooted at `runId` (see {@link readTree}): its log and those of the nested runs that
 * keep their own, each event with the cursor a client resumes from; old-style trees read as one log, as before.
 */
export async function* followTree(
  logs: RunLogs,
  runId: string,
  opts: FollowTreeOptions = {},
): AsyncGenerator<TreeEvent> {
  yield* readTree(treeLogs(logs, opts), runId, { from: opts.from, signal: opts.signal });
}

/**
 * Yields a run tree's events (see {@link followTree}) from `after` in the root's log (or from `from`), the root's
 * terminal event once the run has closed: the root adds that event to its event log after putting it on its Wire, so
 * a client that has seen it and asks for the run finds it finished.
 */
export async function* followRun(
  logs: RunLogs,
  rootRunId: string,
  opts: ReadEventsOptions & { tenant?: string; from?: TreeCursor } = {},
): AsyncGenerator<WireEvent> {
  const { push, after, ...rest } = opts;
  const from = opts.from ?? cursorAt(after ?? -1);
  for await (const { event } of followTree(logs, rootRunId, {
    ...rest,
    from,
    // A caller's own push follows the root only (older callers); children are then read by polling.
    ...(push ? { push: (runId: string) => (runId === rootRunId ? push : undefined) } : {}),
  }))
    yield event;
}
