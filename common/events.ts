// The event envelope of a run's stream (docs/ARCHITECTURE.md, "The Wire"), carried over from Agio's StepEvent.
import { z } from 'zod';
import type { EventFields } from './event-data';
import { EVENT_TYPES, isKnownEventType } from './event-types';
import { Step, StepDelta, Usage } from './steps';

/** Every event type a stream can carry. */
export const EventType = z.enum(EVENT_TYPES);
/** Every event type a stream can carry. */
export type EventType = z.infer<typeof EventType>;

/**
 * An event type this release does not know, from a run on a newer release (its child, say): kept as it is, stored,
 * streamed and shown generically, never dropped. Upper snake case, as every Agio event type.
 */
export const UnknownEventType = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'event types are upper snake case');
/** The type of an event in a log: one this release knows, or a newer release's kept as it is. */
export type AnyEventType = EventType | (string & {});
/** Schema of {@link AnyEventType}. */
export const AnyEventType: z.ZodType<AnyEventType> = z.union([EventType, UnknownEventType]);

export { isKnownEventType } from './event-types';

/** Types that end a run; only the root's (depth 0) end the stream. */
export const TERMINAL_EVENT_TYPES: readonly EventType[] = ['RUN_COMPLETED', 'RUN_FAILED', 'RUN_CANCELLED'];

/** True for a type that ends a run (an unknown type never does). */
export function isTerminalType(type: AnyEventType): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** An event before the Wire gives it an offset (what publishers send). */
export const EventDraft = z.object({
  type: EventType,
  runId: z.string(),
  rootRunId: z.string(),
  parentRunId: z.string().optional(),
  agent: z.string(),
  depth: z.number().int().nonnegative(),
  nestingType: z.enum(['agent_tool', 'workflow_agent']).optional(),
  toolCallId: z.string().optional(),
  stepId: z.string().optional(),
  attempt: z.number().int().positive().optional(),
  delta: StepDelta.optional(),
  snapshot: Step.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  usage: Usage.optional(),
  traceId: z.string().optional(),
  spanId: z.string().optional(),
  parentSpanId: z.string().optional(),
  /**
   * The run keeps its own event log (a nested run of a tree started under the patch `agio-nested-event-logs`): its
   * events are in that log, with its offsets, and its parent's log holds only copies of its start and end, which
   * point readers there (docs/ARCHITECTURE.md, "The Wire").
   */
  ownLog: z.literal(true).optional(),
  /** Epoch milliseconds (workflow time for workflow events, wall time for activity events). */
  timestamp: z.number(),
});
/** An event before the Wire gives it an offset. */
export type EventDraft = z.infer<typeof EventDraft>;

/** Fields every event of one run shares. */
export type EventBase = Pick<
  EventDraft,
  | 'runId'
  | 'rootRunId'
  | 'parentRunId'
  | 'agent'
  | 'depth'
  | 'nestingType'
  | 'toolCallId'
  | 'traceId'
  | 'spanId'
  | 'ownLog'
>;

/**
 * The id of the run whose log holds a run's events (and whose publish signal takes them): the run itself when it
 * keeps its own log, else its root.
 */
export function logOwnerOf(base: Pick<EventBase, 'runId' | 'rootRunId' | 'ownLog'>): string {
  return base.ownLog ? base.runId : base.rootRunId;
}

/**
 * Whether `event` ends the log of run `owner`: that run's own terminal event. (In a parent's log, the copy of a
 * child's terminal event does not.)
 */
export function endsLogOf(owner: string, event: Pick<WireEvent, 'type' | 'runId'>): boolean {
  return event.runId === owner && isTerminalType(event.type);
}

/** An event in a root run's log: its type may be one a newer release added (see {@link UnknownEventType}). */
export const AgioEvent = EventDraft.extend({
  type: AnyEventType,
  /**
   * Position in its run's log, from 0: the root's, or a nested run's own when it keeps one (`ownLog`); older trees
   * put nested events in the root's log, with the root's offsets. A live delta (read from the live lane, not a log)
   * has the offset, in the streamed run's own log, of the position before it, and its own `seq`. SSE ids are tree
   * cursors (client/tree-cursor.ts), a plain offset while no nested log is open.
   */
  offset: z.number().int().min(-1),
  /** Live deltas only: position in the root run's live lane. */
  seq: z.number().int().nonnegative().optional(),
});
/**
 * An event as the wire carries it: any type (a newer release's too) and untyped `data`. What readers, stores and
 * lanes pass along; consumers read {@link AgioEvent}.
 */
export type WireEvent = z.infer<typeof AgioEvent>;

/** The fields every event has, whatever its type. */
export type EventEnvelope = Omit<WireEvent, 'type' | 'data'>;

/** An event of type `K`, with that type's fields (see {@link EventFields}). */
export type AgioEventOf<K extends EventType> = EventEnvelope & { type: K } & EventFields[K];

/**
 * An event of a run's stream, a union discriminated by `type`: after `if (e.type === 'TOOL_AUTH_REQUIRED')`,
 * `e.data.tool` is a string. A run on a newer release may add types; such events still arrive, as they are (see
 * {@link UnknownAgioEvent}): give a `switch` on `type` a default branch, or test with {@link isKnownEvent}.
 */
export type AgioEvent = { [K in EventType]: AgioEventOf<K> }[EventType];

/** An event of a type this release does not know (a newer release's), kept as it is: untyped `data`. */
export type UnknownAgioEvent = EventEnvelope & { type: string; data?: Record<string, unknown> };

/** True for an event of a type this release knows (false for a newer release's, see {@link UnknownAgioEvent}). */
export function isKnownEvent(event: AgioEvent | UnknownAgioEvent): event is AgioEvent {
  return isKnownEventType(event.type);
}

/** The event as its type's fields say (one cast, for events read from the wire). */
export function typedEvent(event: WireEvent): AgioEvent {
  return event as AgioEvent;
}

/** True for the terminal event of the root run: the end of the stream. */
export function endsStream(event: Pick<WireEvent, 'type' | 'depth'>): boolean {
  return event.depth === 0 && isTerminalType(event.type);
}

/** A batch of events from one publisher (an activity attempt or a child run); `sequence` deduplicates. */
export const PublishBatch = z.object({
  publisherId: z.string(),
  sequence: z.number().int().nonnegative(),
  events: z.array(EventDraft),
});
/** A batch of events from one publisher. */
export type PublishBatch = z.infer<typeof PublishBatch>;

/** An event draft whose type may be a newer release's (what a root accepts from its children, see hostWire). */
export type AnyEventDraft = Omit<EventDraft, 'type'> & { type: AnyEventType };

/** A publish batch whose events' types may be a newer release's: what a root keeps when PublishBatch refuses it. */
export const ForwardPublishBatch = PublishBatch.extend({
  events: z.array(EventDraft.extend({ type: AnyEventType })),
});
/** A publish batch whose events' types may be a newer release's. */
export type ForwardPublishBatch = z.infer<typeof ForwardPublishBatch>;

/** Arguments of the events query. */
export interface EventsQueryInput {
  /** Return events with offset > after (-1 or absent: from the start). */
  after?: number;
  limit?: number;
}

/** Answer of the events query. */
export interface EventsPage {
  events: WireEvent[];
  /** Offset of the last event the log holds (-1 when empty). */
  lastOffset: number;
  /** Lowest offset still held (continue-as-new keeps only a tail). */
  firstOffset: number;
  /** True once the root's terminal event is in the log. */
  ended: boolean;
  /** True when the root hands every event it appends to the live lane (see WireSinks): readers may follow it there. */
  pushed?: boolean;
}
