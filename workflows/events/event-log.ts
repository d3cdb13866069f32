// How a root run fills its event log in the stores (stores/EventLogStore), so a reader of the finished run is
// served from there instead of a replay. The Wire's events ride on local store writes (a local activity's input
// is not recorded in history); the terminal event goes last with a regular activity, so the workflow task that
// puts it on the Wire leaves the run open and a reader's Query waiting on that task is answered from the worker's
// cache. (A Query waiting on the task that closes a run is handed by the server to a worker that replays the whole
// run.) A write that fails leaves the log short; readers then fall back to the Query.
import { isCancellation, patched } from '@temporalio/workflow';
import type { WireEvent, RunContext } from '../../common';
import { BOUNDED_STORE_CALLS_PATCH, bestEffortStore, tailStore, type StoreActivities } from './store-calls';
import type { Wire } from './wire';

export { STORE_CALL } from './store-calls';

/** The patch under which a root writes its terminal event to its event log (a command runs of older code lack). */
export const EVENT_LOG_TAIL_PATCH = 'agio-event-log-tail';

/** Writes a run's Wire to its event log; a run without one (nested in an older tree) writes nothing. */
export class EventLogWriter {
  /**
   * @param logged the offset up to which the Wire's events are already written (carried across continue-as-new)
   */
  constructor(
    private readonly context: Pick<RunContext, 'tenant' | 'rootRunId' | 'runId' | 'depth'>,
    private readonly wire: Wire | undefined,
    private logged = -1,
  ) {}

  /** Set once a bounded write has failed: the store is down, and the tail is not waited for (readers use the Query). */
  private gaveUp = false;

  /** Notes that a bounded write of this run failed (the run's last record, see run-record.ts). */
  gaveUpWriting(): void {
    this.gaveUp = true;
  }

  /** The Wire offset up to which events are written. */
  get loggedOffset(): number {
    return this.logged;
  }

  /** The id of the log: the root's, or a nested run's own (see NESTED_EVENT_LOGS_PATCH). */
  private get logId(): string {
    return this.context.depth === 0 ? this.context.rootRunId : this.context.runId;
  }

  /** Runs a store write carrying the events not written yet; they count as written once it succeeds. */
  async withEvents(write: (events: { events?: WireEvent[]; eventLogId?: string }) => Promise<void>): Promise<void> {
    const events = this.wire?.since(this.logged) ?? [];
    const owner = this.logId === this.context.rootRunId ? {} : { eventLogId: this.logId };
    await write(events.length ? { events, ...owner } : {});
    if (events.length) this.logged = events[events.length - 1].offset;
  }

  /**
   * Writes the events not written yet with a local activity (for runs with no store write of their own to ride on).
   * A failed write fails nothing (and is given up after a few seconds, see store-calls.ts).
   */
  writeLocally(): Promise<void> {
    return this.write(bestEffortStore());
  }

  /**
   * Writes the events not written yet, the terminal event among them, with a regular activity (see above), for 30 s
   * at most; not at all once a bounded write of the run has failed (the store is down: the run closes without waiting).
   */
  async logTail(): Promise<void> {
    if (this.gaveUp && patched(BOUNDED_STORE_CALLS_PATCH)) return;
    return this.write(tailStore());
  }

  private async write(via: Pick<StoreActivities, 'logEvents'>): Promise<void> {
    await this.withEvents(async ({ events }) => {
      if (events) await via.logEvents({ tenant: this.context.tenant, rootRunId: this.logId, events });
    }).catch((err: unknown) => {
      if (!isCancellation(err)) this.gaveUp = true;
    });
  }
}
