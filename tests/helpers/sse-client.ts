// A real Server-Sent-Events client for integration tests (the `eventsource` package, not the bridge's own code):
// collects `{ id, event, data }` frames until the server closes the stream, optionally resuming with
// Last-Event-ID and disconnecting after N events.
import { EventSource, type FetchLike } from 'eventsource';
import { parseCursor, type TreeCursor } from '../../client/tree-cursor';
import { EventType, isKnownEventType, isTerminalType, type AgioEvent } from '../../common';

/** One SSE frame as the client received it. */
export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

/** Options of {@link readSse}. */
export interface ReadSseOptions {
  /** Bearer token sent as the Authorization header. */
  token?: string;
  /** Sent as the Last-Event-ID header of the first request (a resume). */
  lastEventId?: string;
  /** Disconnect (client side) once this many events have arrived. */
  maxEvents?: number;
  /** Disconnect (client side) after the first event for which this holds. */
  until?: (event: SseEvent) => boolean;
  /** Called for every event as it arrives (e.g. to inject a fault at the right moment). */
  onEvent?: (event: SseEvent) => void;
  /** Fails the read when the stream has not ended by then (default 30 s). */
  timeoutMs?: number;
}

/** What a read collected and how it ended. */
export interface SseResult {
  events: SseEvent[];
  /** `server`: the server ended the response; `client`: we disconnected after `maxEvents`. */
  closedBy: 'server' | 'client';
}

/** Event names the bridge sends: every Agio event type, plus its `error` frame for a failed upstream read. */
const EVENT_NAMES = [...EventType.options, 'message'];

/** Reads an SSE stream until the server closes it (or `maxEvents` arrived); rejects on an HTTP error or a timeout. */
export function readSse(url: string, opts: ReadSseOptions = {}): Promise<SseResult> {
  const events: SseEvent[] = [];
  const authFetch: FetchLike = (input, init) =>
    fetch(input, {
      ...init,
      headers: {
        ...init.headers,
        ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.lastEventId !== undefined ? { 'Last-Event-ID': opts.lastEventId } : {}),
      },
    });
  return new Promise<SseResult>((resolve, reject) => {
    const source = new EventSource(url, { fetch: authFetch });
    const timer = setTimeout(
      () =>
        end(new Error(`SSE stream ${url} did not end within ${opts.timeoutMs ?? 30_000} ms; got ${describe(events)}`)),
      opts.timeoutMs ?? 30_000,
    );
    const end = (error?: Error, closedBy: SseResult['closedBy'] = 'server') => {
      clearTimeout(timer);
      // After the current dispatch: on a server close the client arms its reconnect timer after firing `error`.
      queueMicrotask(() => source.close());
      if (error) reject(error);
      else resolve({ events, closedBy });
    };
    const onMessage = (message: MessageEvent) => {
      const event = { id: message.lastEventId, event: message.type, data: String(message.data) };
      events.push(event);
      opts.onEvent?.(event);
      if ((opts.maxEvents !== undefined && events.length >= opts.maxEvents) || opts.until?.(event))
        end(undefined, 'client');
    };
    for (const name of EVENT_NAMES) source.addEventListener(name, onMessage);
    source.addEventListener('error', (e) => {
      // The bridge's own `event: error` frame is a message; anything else is the connection ending.
      if ('data' in e) return onMessage(e as MessageEvent);
      const { code, message } = e as Event & { code?: number; message?: string };
      // A clean end of the response makes the client schedule a reconnect (CONNECTING) with no message.
      if (source.readyState === source.CONNECTING && !message) return end();
      end(
        new Error(
          `SSE stream ${url} failed: ${message ?? 'connection error'}${code ? ` (HTTP ${code})` : ''}; got ${describe(events)}`,
        ),
      );
    });
  });
}

/** The Agio events carried by SSE frames (their JSON `data`), checking `id:` and `event:` agree with it. */
export function agioEvents(frames: SseEvent[]): AgioEvent[] {
  let before: { id: string } | undefined;
  return frames.map((frame) => {
    const event = JSON.parse(frame.data) as AgioEvent;
    // A durable event's id is its offset; once live deltas flow, ids also carry the lane position (`offset.seq`). With
    // nested logs open it is the tree cursor (client/tree-cursor.ts), which holds the event's offset in its own log.
    // A live delta carries the id of the durable event before it (first in a resumed stream: the position resumed
    // from) with its own lane position, and as its offset that id's first number (the offset in the stream's own
    // run's log). An event of a type this release does not know comes as a plain message (see bridge/sse.ts).
    const name = isKnownEventType(event.type) ? event.type : 'message';
    const durableId = frame.id.split('.')[0];
    const holds =
      event.seq === undefined
        ? idHolds(durableId, event)
        : parseCursor(durableId)?.after === event.offset && (!before || durableId === before.id);
    if (!holds || frame.event !== name) {
      throw new Error(
        `SSE frame id/event (${frame.id}/${frame.event}) disagree with its data (${event.offset}/${event.type})`,
      );
    }
    if (event.seq === undefined) before = { id: durableId };
    return event;
  });
}

function describe(events: SseEvent[]): string {
  return `${events.length} events [${events.map((e) => `${e.id}:${e.event}`).join(', ')}]`;
}

/**
 * Whether an SSE id (its durable part) is where a client that has `event` stands: its offset (older trees and root
 * events with no nested log open), or a tree cursor that holds the event's offset as that of one of its logs (a nested
 * run's terminal event closes its log: the cursor no longer names it).
 */
function idHolds(durable: string, event: AgioEvent): boolean {
  if (durable === String(event.offset)) return true;
  const cursor = parseCursor(durable);
  if (!cursor) return false;
  if (!event.ownLog) return event.runId === event.rootRunId ? cursor.after === event.offset : false;
  if (isTerminalType(event.type) && event.runId !== event.rootRunId) return true;
  const afters = (c: TreeCursor): number[] => [c.after, ...[...c.open.values()].flatMap(afters)];
  return afters(cursor).includes(event.offset);
}

/** A stream read in the background: its durable events (no STEP_DELTA) with when each arrived, and the read itself. */
export interface FollowedStream {
  seen: { event: AgioEvent; at: number }[];
  read: Promise<SseResult>;
}

/** Starts reading an SSE stream of Agio events in the background (`timeoutMs` default 120 s). */
export function followSse(url: string, opts: Omit<ReadSseOptions, 'onEvent'> = {}): FollowedStream {
  const seen: FollowedStream['seen'] = [];
  const read = readSse(url, {
    timeoutMs: 120_000,
    ...opts,
    onEvent: (frame) => {
      const event = JSON.parse(frame.data) as AgioEvent;
      if (event.type !== 'STEP_DELTA') seen.push({ event, at: Date.now() });
    },
  });
  return { seen, read };
}
