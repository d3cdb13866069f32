// Reads a run tree whose nested runs keep their own event logs: the run's log, and each child's log from the moment
// the run's log points at it (its start pointer) until the child's own terminal event. Events of all logs come out
// in the order they arrive, each log's in offset order, each once; each with the cursor a client resumes from. The
// run's log goes on past a child's end pointer only once that child's log has delivered its terminal event (or the
// pointer itself stands in for it, when the child closed without one). Older trees (nested events inline in the
// root's log, no `ownLog`) read as one log, exactly as before.
import { endsLogOf, isTerminalType, type WireEvent, type EventBase } from '../common';
import { cursorAt, type TreeCursor } from './tree-cursor';

/** Where the logs of a tree are read from (RunLogs over Temporal and the stores, or a fake in tests). */
export interface TreeLogs {
  /** Run `runId`'s log after `after`, ending at its own terminal event (`base`: the run, from its start pointer). */
  read(runId: string, after: number, signal: AbortSignal, base?: WireEvent): AsyncIterable<WireEvent>;
  /** The event at `offset` of run `runId`'s log (a cursor names a child by its pointer's offset). */
  eventAt(runId: string, offset: number, signal: AbortSignal): Promise<WireEvent | undefined>;
}

/** One event of a tree, where it is and what a client that has it resumes from. */
export interface TreeEvent {
  event: WireEvent;
  /** Pointer offsets from the tree's root log to the log that holds the event ([]: the root's own log). */
  path: readonly number[];
  /** The reader's position once this event is delivered. */
  cursor: TreeCursor;
}

/** A pointer in a parent's log: a copy of a child's start or end, naming the child's own log. */
const isPointer = (logRunId: string, event: WireEvent): boolean =>
  event.runId !== logRunId && (event as { ownLog?: boolean }).ownLog === true;

/** The run a pointer names, as its synthetic events carry it. */
const baseOf = (event: WireEvent): Partial<EventBase> => {
  const { runId, rootRunId, parentRunId, agent, depth, nestingType, toolCallId } = event;
  return { runId, rootRunId, parentRunId, agent, depth, nestingType, toolCallId, ownLog: true };
};

class Deferred {
  done = false;
  readonly promise: Promise<void>;
  resolve!: () => void;
  constructor() {
    this.promise = new Promise((r) => (this.resolve = () => ((this.done = true), r())));
  }
}

/** One log being read. */
interface LogNode {
  runId: string;
  path: number[];
  after: number;
  open: Map<number, LogNode>;
  /** Children whose end pointer this log has not passed yet, by run id (to find the child an end pointer names). */
  byRun: Map<string, LogNode>;
  /** The offset this log was opened after (-1: from its start, or from the oldest event it still holds). */
  startedAfter: number;
  parent?: LogNode;
  /** Its start pointer (absent for the root). */
  base?: WireEvent;
  /** Its end pointer, once the parent's log has reached it. */
  endPointer?: WireEvent;
  pointed: Deferred;
  /** Its producer has read its own terminal event (children left open then cannot expect more pointers). */
  ending: Deferred;
  /** Its terminal event has been delivered. */
  finished: Deferred;
  abort: AbortController;
  /** Stops following the parent's abort. */
  unlink: () => void;
}

/** What a log's producer hands the consumer: an event, or a child log opened or passed (its end pointer). */
type Step =
  | { kind: 'event'; node: LogNode; event: WireEvent }
  | { kind: 'open'; node: LogNode; child: LogNode }
  | { kind: 'close'; node: LogNode; child: LogNode; offset: number };
type Item = Step & { taken: () => void };

/** Longest a run's terminal event waits for children still open (abandoned children are not waited for). */
const CHILDREN_GRACE_MS = 5000;

/**
 * Yields every event of the tree rooted at `rootRunId` that a client at `from` lacks, until the root's terminal event.
 */
export async function* readTree(
  logs: TreeLogs,
  rootRunId: string,
  opts: { from?: TreeCursor; signal?: AbortSignal } = {},
): AsyncGenerator<TreeEvent> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const queue: Item[] = [];
  let arrived: (() => void) | undefined;
  let failure: Error | undefined;
  let running = 0;
  const wakeConsumer = () => {
    const wake = arrived;
    arrived = undefined;
    wake?.();
  };
  const push = (item: Step) =>
    new Promise<void>((taken) => {
      queue.push({ ...item, taken } as Item);
      wakeConsumer();
    });
  const node = (runId: string, path: number[], after: number, parent?: LogNode, base?: WireEvent): LogNode => {
    const abort = new AbortController();
    const signal = parent?.abort.signal ?? stop.signal;
    // Removed when the log's producer ends: a run with thousands of children must not pile listeners on its signal.
    const follow = () => abort.abort();
    signal.addEventListener('abort', follow, { once: true });
    return {
      unlink: () => signal.removeEventListener('abort', follow),
      runId,
      path,
      after,
      startedAfter: after,
      open: new Map(),
      byRun: new Map(),
      parent,
      base,
      pointed: new Deferred(),
      ending: new Deferred(),
      finished: new Deferred(),
      abort,
    };
  };

  const produce = async (log: LogNode): Promise<void> => {
    for await (const event of logs.read(log.runId, log.after, log.abort.signal, log.base)) {
      if (log.abort.signal.aborted) return;
      if (isPointer(log.runId, event) && event.type === 'RUN_STARTED') {
        if (log.byRun.has(event.runId)) continue;
        await open(log, event);
        continue;
      }
      if (isPointer(log.runId, event) && isTerminalType(event.type)) {
        let child = log.byRun.get(event.runId);
        if (!child) {
          // Read from a cursor, this log's children not named in it were delivered whole before it; read from its
          // start, a child whose start pointer is no longer held (continued as new, no store) is opened here.
          if (log.startedAfter >= 0) continue;
          child = await open(log, event);
        }
        child.endPointer = event;
        child.pointed.resolve();
        await until(child.finished.promise, log.abort.signal);
        if (log.abort.signal.aborted) return;
        await push({ kind: 'close', node: log, child, offset: event.offset });
        continue;
      }
      let out = event;
      if (endsLogOf(log.runId, event)) {
        log.ending.resolve();
        if (log.base && (event.data as { synthetic?: boolean } | undefined)?.synthetic) {
          // Closed without its own terminal event: its parent's end pointer says how it ended, if it has one.
          await until(Promise.race([log.pointed.promise, log.parent!.ending.promise]), log.abort.signal);
          if (log.endPointer) out = { ...log.endPointer, offset: event.offset };
          else out = { ...event, ...baseOf(log.base) };
        }
        await until(allFinished(log), log.abort.signal, CHILDREN_GRACE_MS);
        if (log.abort.signal.aborted) return;
      }
      await push({ kind: 'event', node: log, event: out });
      if (endsLogOf(log.runId, event)) return;
    }
  };
  const open = async (log: LogNode, pointer: WireEvent): Promise<LogNode> => {
    const child = node(pointer.runId, [...log.path, pointer.offset], -1, log, pointer);
    log.byRun.set(pointer.runId, child);
    await push({ kind: 'open', node: log, child });
    start(child);
    return child;
  };
  const start = (log: LogNode) => {
    running++;
    produce(log)
      .catch((err: Error) => {
        if (!log.abort.signal.aborted) failure ??= err;
      })
      .finally(() => {
        log.unlink();
        running--;
        wakeConsumer();
      });
  };

  try {
    const root = node(rootRunId, [], opts.from?.after ?? -1);
    const toStart = [root, ...(await reopen(logs, root, opts.from ?? cursorAt(), node, stop.signal))];
    for (const log of toStart) start(log);
    for (;;) {
      if (failure) throw failure;
      const item = queue.shift();
      if (!item) {
        if (running === 0 || stop.signal.aborted) return;
        await new Promise<void>((resolve) => (arrived = resolve));
        continue;
      }
      const log = item.node;
      if (log.abort.signal.aborted) {
        item.taken(); // a child left open when its parent ended
        continue;
      }
      if (item.kind === 'open') {
        log.open.set(item.child.path[item.child.path.length - 1], item.child);
        log.after = Math.max(log.after, item.child.path[item.child.path.length - 1]);
      } else if (item.kind === 'close') {
        log.byRun.delete(item.child.runId);
        log.after = Math.max(log.after, item.offset);
      } else {
        log.after = Math.max(log.after, item.event.offset);
        const ends = endsLogOf(log.runId, item.event);
        if (ends) {
          // Delivered whole: no longer in the cursor (its pointer is at or before its parent's offset).
          log.parent?.open.delete(log.path[log.path.length - 1]);
          log.finished.resolve();
          for (const child of log.open.values()) child.abort.abort();
          log.open.clear();
        }
        yield { event: item.event, path: log.path, cursor: snapshot(root) };
        if (ends && log === root) return;
      }
      item.taken();
    }
  } finally {
    stop.abort();
    opts.signal?.removeEventListener('abort', onAbort);
    // Producers waiting for their items to be taken go on, see the reader stopped and close their logs' readers.
    for (const item of queue.splice(0)) item.taken();
  }
}

/** Re-opens the children a cursor names (found from their pointers), depth first; returns them to be started. */
async function reopen(
  logs: TreeLogs,
  log: LogNode,
  cursor: TreeCursor,
  node: (runId: string, path: number[], after: number, parent?: LogNode, base?: WireEvent) => LogNode,
  signal: AbortSignal,
): Promise<LogNode[]> {
  const opened: LogNode[] = [];
  for (const [key, childCursor] of cursor.open) {
    const pointer = await logs.eventAt(log.runId, key, signal);
    if (!pointer || !isPointer(log.runId, pointer))
      throw new CursorError(`offset ${key} of the log of ${log.runId} does not point at a nested run's log`);
    const child = node(pointer.runId, [...log.path, key], childCursor.after, log, pointer);
    log.open.set(key, child);
    log.byRun.set(pointer.runId, child);
    opened.push(child, ...(await reopen(logs, child, childCursor, node, signal)));
  }
  return opened;
}

/** A cursor names a child log that is not there (an id from another run, or a made-up one). */
export class CursorError extends Error {
  override name = 'CursorError';
}

const allFinished = (log: LogNode) => Promise.all([...log.byRun.values()].map((c) => c.finished.promise));

/** Waits for `promise`, at most `ms` (if given), and no longer than `signal` stays unaborted. */
const until = (promise: Promise<unknown>, signal: AbortSignal, ms?: number) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
    void promise.then(done, done);
  });

/** An immutable copy of where the reader stands. */
function snapshot(log: LogNode): TreeCursor {
  const open = new Map<number, TreeCursor>();
  for (const [key, child] of log.open) open.set(key, snapshot(child));
  return { after: log.after, open };
}
