// One upstream reader per run tree per bridge process, fanned out to all of its SSE clients. The reader keeps the
// events it has read so a client joining late (or reconnecting) is served from memory, and stops when the
// run's stream has ended or its last client has left. With a live lane the reader follows each log's durable events
// there as they are appended, and reads the events Query only to catch up (docs/ARCHITECTURE.md, "The Wire"). The
// logs of nested runs that keep their own are read as the tree reader meets them (client/tree-reader.ts); positions
// are tree cursors (client/tree-cursor.ts), a plain offset for a tree with no child log open.
import type { AgioClient } from '../client/agio-client';
import type { WireEvent } from '../common';
import { followTree, type RunLogs, type RunLogStats } from '../client/run-log';
import { cursorAt, encodeCursor, hasEvent, isBehind, joinCursors, type TreeCursor } from '../client/tree-cursor';
import type { TreeEvent } from '../client/tree-reader';
import type { LiveLane } from '../live/lane';
import type { EventLogStore } from '../stores';

/** A subscriber's callbacks. */
export interface StreamSubscriber {
  /** One event, with the id a client that has it resumes from (the cursor, encoded). */
  onEvent(event: WireEvent, id: string): void;
  onEnd(error?: Error): void;
}

/** Where a subscriber stands: what it had when it came, and whether the reader's own cursor now says it all. */
interface Position {
  from: TreeCursor;
  /** The reader's cursor covers `from`: each event's id is the reader's own. */
  caughtUp: boolean;
}

interface Reader {
  /** The reader reads what a client at this position lacks (the client that started it). */
  start: TreeCursor;
  events: TreeEvent[];
  subscribers: Map<StreamSubscriber, Position>;
  abort: AbortController;
  /** Cuts the reader's current pause short (see {@link StreamHub.wake}). */
  wake: EventTarget;
  ended: boolean;
}

/** Counters the bridge exposes (GET /healthz). */
export interface HubStats {
  readersStarted: number;
  activeReaders: number;
  subscribers: number;
  /** Pages the readers have read since the bridge started (events Queries, and a closed run's pages from its log). */
  queries: number;
  /** How pages of closed runs were read. */
  closedRuns: RunLogStats;
}

/** Shares one upstream reader per run among all SSE clients of this process. */
export class StreamHub {
  /** Readers per run: usually one; a client resuming earlier than every reader's start gets one of its own. */
  private readonly readers = new Map<string, Reader[]>();
  private started = 0;
  private queries = 0;
  private readonly logs: RunLogs;

  /**
   * @param agio the client whose runs are read
   * @param eventLog the stores' event logs: finished runs are read from there instead of being replayed
   * @param lane the live lane the workers push the roots' durable events on (without one, readers poll)
   */
  constructor(
    agio: AgioClient,
    eventLog?: EventLogStore,
    private readonly lane?: LiveLane,
  ) {
    this.logs = agio.runLogs(eventLog);
  }

  /**
   * Subscribes to the events of the tree rooted at `runId` (a root, or a nested run that keeps its own log; the run
   * is `tenant`'s) that a client at `after` lacks; returns the unsubscribe function.
   */
  subscribe(tenant: string, runId: string, after: number | TreeCursor, sub: StreamSubscriber): () => void {
    const from = typeof after === 'number' ? cursorAt(after) : after;
    const readers = this.readers.get(runId) ?? [];
    let reader = readers.find((r) => isBehind(r.start, from));
    if (!reader) {
      // A new reader starts where its client resumes: a client at offset 5,000 does not wait for 5,000 events.
      reader = {
        start: from,
        events: [],
        subscribers: new Map(),
        abort: new AbortController(),
        wake: new EventTarget(),
        ended: false,
      };
      this.readers.set(runId, [...readers, reader]);
      this.started++;
      void this.pump(tenant, runId, reader);
    }
    const position: Position = { from, caughtUp: isBehind(from, reader.start) };
    for (const read of reader.events) deliver(sub, position, read);
    if (reader.ended) {
      sub.onEnd();
      return () => undefined;
    }
    reader.subscribers.set(sub, position);
    return () => this.leave(runId, reader!, sub);
  }

  /**
   * Tells the run's reader that something may have happened (this bridge just sent the run a pause, resume,
   * decision or cancel), so a reader that has backed off on a quiet run polls again at once.
   */
  wake(runId: string): void {
    // A nested run's events are read through its root's reader (ids nest: `<root>/tool/<step>-<callId>`,
    // `<root>/branch/…`), and a signal to a run reaches the runs nested in it (a reader of a nested run's own tree).
    for (const [id, readers] of this.readers)
      if (runId === id || runId.startsWith(`${id}/`) || id.startsWith(`${runId}/`))
        for (const reader of readers) reader.wake.dispatchEvent(new Event('wake'));
  }

  /** Live counters. */
  stats(): HubStats {
    let subscribers = 0;
    let active = 0;
    for (const readers of this.readers.values()) {
      active += readers.length;
      for (const r of readers) subscribers += r.subscribers.size;
    }
    return {
      readersStarted: this.started,
      activeReaders: active,
      subscribers,
      queries: this.queries,
      closedRuns: { ...this.logs.stats },
    };
  }

  /** Stops every reader (bridge shutdown). */
  close(): void {
    for (const readers of this.readers.values()) for (const reader of readers) reader.abort.abort();
    this.readers.clear();
  }

  private leave(runId: string, reader: Reader, sub: StreamSubscriber): void {
    reader.subscribers.delete(sub);
    if (reader.subscribers.size === 0) {
      reader.abort.abort();
      this.forget(runId, reader);
    }
  }

  private forget(runId: string, reader: Reader): void {
    const rest = (this.readers.get(runId) ?? []).filter((r) => r !== reader);
    if (rest.length) this.readers.set(runId, rest);
    else this.readers.delete(runId);
  }

  private async pump(tenant: string, runId: string, reader: Reader): Promise<void> {
    let error: Error | undefined;
    try {
      const lane = this.lane;
      for await (const read of followTree(this.logs, runId, {
        tenant,
        from: reader.start,
        signal: reader.abort.signal,
        wake: reader.wake,
        onPoll: () => this.queries++,
        ...(lane ? { push: (logRunId: string) => lane.followEvents.bind(lane, logRunId) } : {}),
      })) {
        reader.events.push(read);
        for (const [sub, position] of reader.subscribers) deliver(sub, position, read);
      }
    } catch (err) {
      error = err as Error;
    }
    reader.ended = true;
    for (const sub of reader.subscribers.keys()) sub.onEnd(error);
    reader.subscribers.clear();
    this.forget(runId, reader);
  }
}

/** Hands `read` to a subscriber unless it had it when it came; its id says all the subscriber has now. */
function deliver(sub: StreamSubscriber, position: Position, read: TreeEvent): void {
  if (hasEvent(position.from, read.path, read.event.offset)) return;
  if (!position.caughtUp && isBehind(position.from, read.cursor)) position.caughtUp = true;
  sub.onEvent(read.event, encodeCursor(position.caughtUp ? read.cursor : joinCursors(position.from, read.cursor)));
}
