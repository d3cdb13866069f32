// Server-Sent-Events framing: `id:` = offset, `event:` = type, one JSON `data:` line; comments for heartbeats.
import type { AgioEvent } from '../common';

/** One event as an SSE frame. */
export function sseFrame(event: AgioEvent): string {
  return `id: ${event.offset}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A comment frame (ignored by clients; keeps proxies from closing an idle stream). */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/**
 * The offset to resume after: `Last-Event-ID` wins over `?after=`; -1 means from the start.
 * Returns undefined for a malformed value (the route answers 400).
 */
export function resumeOffset(lastEventId: string | string[] | undefined, after: unknown): number | undefined {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  // A repeated `?after=` arrives as an array: malformed, not "from the start".
  if (header === undefined && after !== undefined && typeof after !== 'string') return undefined;
  const raw = header ?? (after as string | undefined);
  if (raw === undefined || raw === '') return -1;
  if (!/^-?\d{1,15}$/.test(raw.trim())) return undefined;
  const n = Number(raw);
  return n >= -1 ? n : undefined;
}
