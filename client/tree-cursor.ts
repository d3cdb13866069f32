// Where a reader of a run tree stands (nested runs that keep their own event logs): its offset in the run's own log,
// and the offsets of the child logs it has open. A child is named by the offset of the pointer that opened it in its
// parent's log ("5": the child whose start pointer is at offset 5; "5/3": that child's child at offset 3 of its log).
// A child named nowhere whose pointer is at or before its parent's offset has been delivered whole.
//
// As an SSE id: the root offset alone when no child is open (`17`: today's ids, and `?after=17`), else the root
// offset then `~<path>:<offset>` per open child (`17~5:3~5/2:-1`); the route appends the lane position (`.1764…`).

/** A reader's position in one log, and in each child log it has open (by the offset of the child's pointer). */
export interface TreeCursor {
  /** The last offset of this log the reader has. */
  after: number;
  /** Child logs the reader has open, by the offset of their pointer in this log. */
  open: ReadonlyMap<number, TreeCursor>;
}

/** Most child logs a cursor may name (a hostile id must not cost more than this to read). */
export const MAX_OPEN_LOGS = 256;

/** The cursor at `after` in the root's log with no child open (what a plain offset means). */
export const cursorAt = (after = -1): TreeCursor => ({ after, open: new Map() });

const OFFSET = /^-?\d{1,15}$/;
const PATH = /^\d{1,15}(?:\/\d{1,15}){0,31}$/;

/** The cursor as the durable part of an SSE id (see the file comment). */
export function encodeCursor(cursor: TreeCursor): string {
  let text = String(cursor.after);
  const walk = (node: TreeCursor, prefix: string) => {
    for (const key of [...node.open.keys()].sort((a, b) => a - b)) {
      const child = node.open.get(key)!;
      const path = `${prefix}${key}`;
      text += `~${path}:${child.after}`;
      walk(child, `${path}/`);
    }
  };
  walk(cursor, '');
  return text;
}

/** Parses the durable part of an SSE id; undefined when malformed (offsets below -1, a child without its parent, …). */
export function parseCursor(text: string): TreeCursor | undefined {
  const [head, ...parts] = text.split('~');
  if (!OFFSET.test(head) || parts.length > MAX_OPEN_LOGS) return undefined;
  const root = { after: Number(head), open: new Map<number, TreeCursor>() };
  if (root.after < -1) return undefined;
  for (const part of parts) {
    const colon = part.lastIndexOf(':');
    const path = part.slice(0, colon);
    const offset = part.slice(colon + 1);
    if (colon < 0 || !PATH.test(path) || !OFFSET.test(offset) || Number(offset) < -1) return undefined;
    const keys = path.split('/').map(Number);
    let parent: TreeCursor = root;
    for (const key of keys.slice(0, -1)) {
      const next = parent.open.get(key);
      if (!next) return undefined; // a child named before (or without) its parent
      parent = next;
    }
    const key = keys[keys.length - 1];
    const open = parent.open as Map<number, TreeCursor>;
    if (open.has(key)) return undefined;
    open.set(key, { after: Number(offset), open: new Map() });
  }
  return root;
}

/**
 * Whether a reader at `cursor` already has the event at `offset` of the log at `path` (pointer offsets from the root).
 */
export function hasEvent(cursor: TreeCursor, path: readonly number[], offset: number): boolean {
  let node = cursor;
  for (const key of path) {
    const child = node.open.get(key);
    // Not open: delivered whole if its pointer is at or before the parent's offset, else not reached yet.
    if (!child) return key <= node.after;
    node = child;
  }
  return offset <= node.after;
}

/** Whether a reader starting at `from` delivers everything a client at `to` lacks (`from` is nowhere ahead of `to`). */
export function isBehind(from: TreeCursor, to: TreeCursor): boolean {
  if (from.after > to.after) return false;
  for (const [key, child] of from.open) {
    const other = to.open.get(key);
    // Not open at `to` (key ≤ from.after ≤ to.after): `to` has it whole.
    if (other && !isBehind(child, other)) return false;
  }
  // A child `to` has open but `from` has delivered whole would not be read again.
  for (const key of to.open.keys()) if (!from.open.has(key) && key <= from.after) return false;
  return true;
}

/** What a client has that had everything of `a` and everything of `b`: per log, the further of the two. */
export function joinCursors(a: TreeCursor, b: TreeCursor): TreeCursor {
  const open = new Map<number, TreeCursor>();
  for (const key of new Set([...a.open.keys(), ...b.open.keys()])) {
    const ca = a.open.get(key);
    const cb = b.open.get(key);
    if ((!ca && key <= a.after) || (!cb && key <= b.after)) continue; // delivered whole on one side
    open.set(key, ca && cb ? joinCursors(ca, cb) : (ca ?? cb)!);
  }
  return { after: Math.max(a.after, b.after), open };
}
