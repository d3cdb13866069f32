// How a root run fills its event log in the stores (stores/EventLogStore), so a reader of the finished run is
// served from there instead of a replay. The Wire's events ride on local store writes (a local activity's input
// is not recorded in history); the terminal event goes last with a regular activity, so the workflow task that
// puts it on the Wire leaves the run open and a reader's Query waiting on that task is answered from the worker's
// cache. (A Query waiting on the task that closes a run is handed by the server to a worker that replays the whole
// run.) A write that fails leaves the log short; readers then fall back to the Query.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgioEvent, RunContext } from '../common';
import type { AgioActivities } from '../activities';
import type { Wire } from './wire';

/**
 * Store writes and reads wait a store outage out: retried with backoff capped at 30 s and no attempt cap, so a MongoDB
 * blip never fails a run, and a finished run completes once the store answers again. (Backoffs past the SDK's local
 * retry threshold become workflow timers, so a long wait holds no workflow task open.)
 */
export const STORE_CALL = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
} as const;
const local = proxyLocalActivities<AgioActivities>(STORE_CALL);
const remote = proxyActivities<AgioActivities>(STORE_CALL);

/** The patch under which a root writes its terminal event to its event log (a command runs of older code lack). */
export const EVENT_LOG_TAIL_PATCH = 'agio-event-log-tail';

/** Writes a root's Wire to its event log; nested runs (no Wire) write nothing. */
export class EventLogWriter {
  /**
   * @param logged the offset up to which the Wire's events are already written (carried across continue-as-new)
   */
  constructor(
    private readonly context: Pick<RunContext, 'tenant' | 'rootRunId'>,
    private readonly wire: Wire | undefined,
    private logged = -1,
  ) {}

  /** The Wire offset up to which events are written. */
  get loggedOffset(): number {
    return this.logged;
  }

  /** Runs a store write carrying the events not written yet; they count as written once it succeeds. */
  async withEvents(write: (events: { events?: AgioEvent[] }) => Promise<void>): Promise<void> {
    const events = this.wire?.since(this.logged) ?? [];
    await write(events.length ? { events } : {});
    if (events.length) this.logged = events[events.length - 1].offset;
  }

  /**
   * Writes the events not written yet with a local activity (for runs with no store write of their own to ride on).
   * A failed write fails nothing.
   */
  writeLocally(): Promise<void> {
    return this.write(local);
  }

  /** Writes the events not written yet, the terminal event among them, with a regular activity (see above). */
  logTail(): Promise<void> {
    return this.write(remote);
  }

  private async write(via: typeof local): Promise<void> {
    await this.withEvents(async ({ events }) => {
      if (events) await via.logEvents({ tenant: this.context.tenant, rootRunId: this.context.rootRunId, events });
    }).catch(() => undefined);
  }
}
