// The live lane: token deltas (STEP_DELTA) travel beside a root run's Wire, never through any workflow's history
// (docs/ARCHITECTURE.md, "The Wire"). The worker's model calls publish into it; bridges read it and merge it with the
// Wire's durable events into one SSE stream per root run. A delta's place in the lane (`seq`) only grows, across
// restarts too, so a client's Last-Event-ID resumes exactly mid-step. The root's durable events travel it too, as the
// root appends them to its Wire, so a bridge reads them as they happen instead of polling the events Query; they keep
// their Wire offsets, by which readers order them, drop repeats and notice a gap (then they catch up by Query).
import type { WireEvent, EventDraft } from '../common';

/** A STEP_DELTA event on the lane, with its position there. */
export interface LaneDelta {
  /** Position in the root run's lane; grows with every delta (never reused, even after a restart). */
  seq: number;
  event: EventDraft;
}

/** The key of one model call (a step's attempt) among a root's deltas: what `endStep` ends. */
export function laneStepKey(event: Pick<EventDraft, 'stepId' | 'attempt'>): string {
  return `${event.stepId}#${event.attempt ?? 1}`;
}

/** Where deltas go and come from. */
export interface LiveLane {
  /** Publishes a step's deltas (fire and forget: the committed step is the record, deltas are a live view). */
  publish(rootRunId: string, events: EventDraft[]): void;
  /** Tells the lane a model call is over (its step's deltas are no longer live; readers resuming later skip them). */
  endStep(rootRunId: string, stepId: string, attempt: number): void;
  /**
   * Follows the root run's deltas after `after` (-1: every delta the lane still holds), retained ones first; each
   * comes with whether its step had already ended when it was handed over. Returns the unsubscribe function.
   */
  subscribe(rootRunId: string, after: number, onDelta: (delta: LaneDelta, stepEnded: boolean) => void): () => void;
  /** Publishes durable events the root just appended to its Wire (fire and forget: the Wire is the record). */
  publishEvents(rootRunId: string, events: WireEvent[]): void;
  /** Follows the durable events the root publishes from now on (none from before: readers catch up by Query). */
  followEvents(rootRunId: string, onEvents: (events: WireEvent[]) => void): EventsFollow;
}

/** A reader's hold on a root's durable events. */
export interface EventsFollow {
  /** Resolves once events published from now on will reach the reader (a reader catches up after that). */
  ready: Promise<void>;
  close(): void;
}
