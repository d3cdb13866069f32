// The Wire: a run's offset-addressed, append-only event log (the root's, and in trees started under
// NESTED_EVENT_LOGS_PATCH each nested run's own). The run appends its own events; its activities, and its children
// (their starts and ends, or in older trees all their events), publish batches by signal, deduplicated by publisher
// and sequence.
import { log, patched, proxySinks, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  ForwardPublishBatch,
  PublishBatch,
  endsLogOf,
  endsStream,
  jsonBytes,
  type WireEvent,
  type AnyEventDraft,
  type EventDraft,
  type EventsPage,
  type EventsQueryInput,
  type WireSinks,
} from '../../common';
import { eventsQuery, publishSignal } from '../../common/messages';

/** What a Wire carries across continue-as-new. */
export interface WireState {
  /** Offset the next event gets. */
  nextOffset: number;
  /** The newest events, for readers that are behind. */
  tail: WireEvent[];
  /** Last sequence applied per publisher. */
  publishers: [string, number][];
}

const MAX_PAGE = 1000;
/** About the most JSON one events page carries (a Query answer over 2 MB never reaches its reader). */
export const MAX_PAGE_BYTES = 1024 * 1024;
const MAX_PUBLISHERS = 2000;

/** The log. Pure bookkeeping; `hostWire` wires it to the signal and query. */
export class Wire {
  private readonly events: WireEvent[];
  private nextOffset: number;
  private readonly publishers: Map<string, number>;
  private ended = false;

  /**
   * @param appended hears every event appended (one call per append or applied batch)
   * @param owner the id of the run whose log this is (its own terminal event ends the log)
   */
  constructor(
    state?: WireState,
    private readonly appended?: (events: WireEvent[]) => void,
    private readonly owner?: string,
  ) {
    this.events = [...(state?.tail ?? [])];
    this.nextOffset = state?.nextOffset ?? 0;
    this.publishers = new Map(state?.publishers ?? []);
  }

  /** Appends one event and returns it with its offset. */
  append(draft: EventDraft): WireEvent {
    const event = this.add(draft);
    this.appended?.([event]);
    return event;
  }

  private add(draft: AnyEventDraft): WireEvent {
    const event: WireEvent = { ...draft, offset: this.nextOffset++ };
    this.events.push(event);
    if (this.owner === undefined ? endsStream(event) : endsLogOf(this.owner, event)) this.ended = true;
    return event;
  }

  /** Applies a batch unless this publisher's sequence was already applied; returns whether it was applied. */
  accept(batch: ForwardPublishBatch): boolean {
    const last = this.publishers.get(batch.publisherId) ?? -1;
    if (batch.sequence <= last) return false;
    this.publishers.delete(batch.publisherId);
    this.publishers.set(batch.publisherId, batch.sequence);
    if (this.publishers.size > MAX_PUBLISHERS) this.publishers.delete(this.publishers.keys().next().value as string);
    const events = batch.events.map((draft) => this.add(draft));
    if (events.length) this.appended?.(events);
    return true;
  }

  /** The held events with offset > after, all of them (what the root has not yet written to the event log). */
  since(after: number): WireEvent[] {
    const first = this.events[0]?.offset ?? this.nextOffset;
    return this.events.slice(Math.max(0, after + 1 - first));
  }

  /**
   * Events with offset > after: at most `limit`, and no more than about MAX_PAGE_BYTES of JSON (always at least one
   * event), so a page of large events (a long input, 64 KiB tool outputs) stays far below what a Query may answer.
   */
  page({ after = -1, limit = MAX_PAGE }: EventsQueryInput = {}): EventsPage {
    const first = this.events[0]?.offset ?? this.nextOffset;
    const start = Math.max(0, after + 1 - first);
    const end = Math.min(this.events.length, start + Math.min(Math.max(1, limit), MAX_PAGE));
    let stop = start;
    for (let bytes = 0; stop < end; stop++) {
      bytes += jsonBytes(this.events[stop]);
      if (bytes > MAX_PAGE_BYTES && stop > start) break;
    }
    return {
      events: this.events.slice(start, stop),
      lastOffset: this.nextOffset - 1,
      firstOffset: first,
      ended: this.ended,
      ...(this.appended ? { pushed: true } : {}),
    };
  }

  /**
   * State for continue-as-new: the newest events up to `maxEvents` and about `maxBytes` of JSON (the next run's
   * input must stay far below Temporal's message limits; readers further behind get an error they can act on).
   */
  snapshot(maxEvents = 5000, maxBytes = 256 * 1024): WireState {
    const tail: WireEvent[] = [];
    let bytes = 0;
    for (let i = this.events.length - 1; i >= 0 && tail.length < maxEvents; i--) {
      bytes += JSON.stringify(this.events[i]).length;
      if (bytes > maxBytes) break;
      tail.push(this.events[i]);
    }
    return { nextOffset: this.nextOffset, tail: tail.reverse(), publishers: [...this.publishers.entries()] };
  }
}

/**
 * The patch under which a root keeps a publish batch whose events have types this release does not know (a newer
 * release's, see UnknownEventType) instead of dropping the whole batch; a batch that is malformed otherwise is still
 * dropped.
 */
export const UNKNOWN_EVENT_TYPES_PATCH = 'agio-keep-unknown-event-types';

/**
 * Creates a run's Wire (`owner`: the run's id), installs the publish signal and the events query, and hands new events
 * to the lane (under the run's workflow id).
 */
export function hostWire(state?: WireState, owner?: string): Wire {
  // Every event appended goes to the worker's live lane too, so bridges need not poll (a sink call is no command;
  // replayed events were handed over when they were first appended).
  const sinks = proxySinks<WireSinks>();
  const wire = new Wire(
    state,
    (events) => {
      if (!workflowInfo().unsafe.isReplaying) sinks.wire.appended(events);
    },
    owner,
  );
  // A signal handler must never throw (an ApplicationFailure there fails the workflow): bad batches are dropped.
  setHandler(publishSignal, (raw: PublishBatch) => {
    const parsed = PublishBatch.safeParse(raw);
    if (parsed.success) {
      wire.accept(parsed.data);
      return;
    }
    // A child on a newer release may publish event types this release does not know: kept as they are (see
    // UNKNOWN_EVENT_TYPES_PATCH). The patch is asked only then, so runs that never met one replay as before.
    const forward = ForwardPublishBatch.safeParse(raw);
    if (forward.success && patched(UNKNOWN_EVENT_TYPES_PATCH)) {
      wire.accept(forward.data);
      return;
    }
    log.warn('dropped a malformed publish batch', { error: parsed.error.message });
  });
  setHandler(eventsQuery, (input) => wire.page(input ?? {}));
  return wire;
}
