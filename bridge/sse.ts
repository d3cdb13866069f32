// Server-Sent-Events framing: `id:` = the stream position (the offset in the run's log, with the offsets of nested
// logs open, see client/tree-cursor.ts; then the lane position once live deltas flow), `event:` = type (none for a
// type this release does not know), one JSON `data:` line; comments for heartbeats.
import { isKnownEventType, type WireEvent } from '../common';
import { parseCursor, type TreeCursor } from '../client/tree-cursor';

/**
 * One event as an SSE frame (its id: the event's offset unless given). An event of a type this release does not know
 * (a newer release's, see UnknownEventType) goes without an `event:` line, so it reaches `onmessage` (a browser's
 * EventSource has no listener for every name); its `data` keeps its type.
 */
export function sseFrame(event: WireEvent, id: string = String(event.offset)): string {
  const name = isKnownEventType(event.type) ? `event: ${event.type}\n` : '';
  return `id: ${id}\n${name}data: ${JSON.stringify(event)}\n\n`;
}

/** A comment frame (ignored by clients; keeps proxies from closing an idle stream). */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** Where a client resumes: after this durable offset and, once it has had live deltas, after this lane position. */
export interface ResumePosition {
  /** The offset in the run's own log. */
  after: number;
  /** The whole position: that offset and the nested logs open (a plain offset: none). */
  cursor: TreeCursor;
  lane?: number;
}

/**
 * Where to resume: `Last-Event-ID` wins over `?after=`; `-1` (or nothing) means from the start. An id is a durable
 * event's offset (`17`), a tree cursor when nested logs were open (`17~5:3`), and for a client that has had live
 * deltas, then the lane position (`17.1764…`, `17~5:3.1764…`). Returns undefined for a malformed value (400).
 */
export function resumePosition(lastEventId: string | string[] | undefined, after: unknown): ResumePosition | undefined {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  // A repeated `?after=` arrives as an array: malformed, not "from the start".
  if (header === undefined && after !== undefined && typeof after !== 'string') return undefined;
  const raw = header ?? (after as string | undefined);
  if (raw === undefined || raw === '') return { after: -1, cursor: parseCursor('-1')! };
  const m = /^([^.]+)(?:\.(\d{1,17}))?$/.exec(raw.trim());
  const cursor = m ? parseCursor(m[1]) : undefined;
  if (!m || !cursor) return undefined;
  return m[2] !== undefined ? { after: cursor.after, cursor, lane: Number(m[2]) } : { after: cursor.after, cursor };
}
