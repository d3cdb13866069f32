// The live lane's token deltas for one AG-UI run (with a lane, the worker streams a model call's deltas there, not into
// the run's log): held as they come and handed to the mapper only when they fit the durable stream read so far — their
// run has started, and their step is the one after that run's last committed step — so text never comes before the
// steps it follows. Deltas of a step already committed (or ended when the lane handed them over) are dropped: the
// committed step says all, and the mapper sends only what its deltas had not.
import type { EventDraft } from '../../common';
import type { LiveLane } from '../../live/lane';

export const LANE = Symbol('lane');

/** A root run's lane deltas, held until the durable stream reaches their step. */
export class LaneDeltas {
  private held: EventDraft[] = [];
  /** A delta came since the last take (held ones that did not fit wait for a durable event instead). */
  private fresh = false;
  private bell?: () => void;
  private readonly leave: () => void;
  /** Runs whose RUN_STARTED the durable stream has had (or the mapper knows). */
  private readonly started = new Set<string>();
  /** Each run's last committed step index, from the durable stream. */
  private readonly lastIndex = new Map<string, number>();
  private readonly committed = new Set<string>();

  constructor(lane: LiveLane | undefined, rootRunId: string) {
    this.leave = lane
      ? lane.subscribe(rootRunId, -1, ({ event }, stepEnded) => {
          if (stepEnded || event.type !== 'STEP_DELTA' || !event.stepId) return;
          this.held.push(event);
          this.fresh = true;
          this.bell?.();
        })
      : () => undefined;
  }

  /** A durable event read: it may let held deltas through, or make them moot. */
  saw(e: { type: string; runId: string; stepId?: string }): void {
    if (e.type === 'RUN_STARTED') this.started.add(e.runId);
    if (e.type === 'STEP_COMPLETED' && e.stepId) {
      this.committed.add(e.stepId);
      const index = indexOf(e.stepId, e.runId);
      if (index !== undefined) this.lastIndex.set(e.runId, Math.max(index, this.lastIndex.get(e.runId) ?? -1));
    }
  }

  /** Resolves once a delta has come since the last take. */
  arrived(): Promise<typeof LANE> {
    if (this.fresh) return Promise.resolve(LANE);
    return new Promise((resolve) => {
      this.bell = () => {
        this.bell = undefined;
        resolve(LANE);
      };
    });
  }

  /** The held deltas that fit the durable stream now, in lane order (the rest stay held, or are dropped). */
  take(): EventDraft[] {
    this.fresh = false;
    const out: EventDraft[] = [];
    const keep: EventDraft[] = [];
    for (const e of this.held) {
      if (this.committed.has(e.stepId!)) continue;
      const index = indexOf(e.stepId!, e.runId);
      const last = this.lastIndex.get(e.runId);
      const fits = this.started.has(e.runId) && (last === undefined || index === last + 1);
      (fits ? out : keep).push(e);
    }
    this.held = keep;
    return out;
  }

  close(): void {
    this.bell = undefined;
    this.held = [];
    this.leave();
  }
}

/** The index of a run's model step (`<runId>:<index>`), or undefined for other steps. */
function indexOf(stepId: string, runId: string): number | undefined {
  if (!stepId.startsWith(`${runId}:`)) return undefined;
  const n = Number(stepId.slice(runId.length + 1));
  return Number.isInteger(n) ? n : undefined;
}
