// One upstream reader per run per bridge process, fanned out to all of its SSE clients. The reader keeps the
// events it has read so a client joining late (or reconnecting) is served from memory, and stops when the
// run's stream has ended or its last client has left. With a live lane the reader follows the root's durable events
// there as they are appended, and reads the events Query only to catch up (docs/ARCHITECTURE.md, "The Wire").
import type { Client } from '@temporalio/client';
import { endsStream, type AgioEvent } from '../common';
import { followRun, RunLogs, type RunLogStats } from '../client/run-log';
import type { LiveLane } from '../live/lane';
import type { EventLogStore } from '../stores';

/** A subscriber's callbacks. */
export interface StreamSubscriber {
  onEvent(event: AgioEvent): void;
  onEnd(error?: Error): void;
}

interface Reader {
  /** The reader reads the events after this offset (those of the client that started it). */
  startAfter: number;
  events: AgioEvent[];
  subscribers: Map<StreamSubscriber, number>;
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
   * @param eventLog the stores' event logs: finished runs are read from there instead of being replayed
   * @param lane the live lane the workers push the roots' durable events on (without one, readers poll)
   */
  constructor(
    client: Client,
    eventLog?: EventLogStore,
    private readonly lane?: LiveLane,
  ) {
    this.logs = new RunLogs(client, eventLog);
  }

  /** Subscribes to a root run's events after `after` (the run is `tenant`'s); returns the unsubscribe function. */
  subscribe(tenant: string, runId: string, after: number, sub: StreamSubscriber): () => void {
    const readers = this.readers.get(runId) ?? [];
    let reader = readers.find((r) => r.startAfter <= after);
    if (!reader) {
      // A new reader starts where its client resumes: a client at offset 5,000 does not wait for 5,000 events.
      reader = {
        startAfter: after,
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
    let last = after;
    for (const event of reader.events) {
      if (event.offset > last) {
        sub.onEvent(event);
        last = event.offset;
      }
    }
    if (reader.ended) {
      sub.onEnd();
      return () => undefined;
    }
    reader.subscribers.set(sub, last);
    return () => this.leave(runId, reader!, sub);
  }

  /**
   * Tells the run's reader that something may have happened (this bridge just sent the run a pause, resume,
   * decision or cancel), so a reader that has backed off on a quiet run polls again at once.
   */
  wake(runId: string): void {
    // A nested run's events are read through its root's reader (ids nest: `<root>/tool/<step>-<callId>`, `<root>/branch/…`).
    for (const [id, readers] of this.readers)
      if (runId === id || runId.startsWith(`${id}/`))
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
      for await (const event of followRun(this.logs, runId, {
        tenant,
        after: reader.startAfter,
        signal: reader.abort.signal,
        wake: reader.wake,
        onPoll: () => this.queries++,
        ...(this.lane ? { push: this.lane.followEvents.bind(this.lane, runId) } : {}),
      })) {
        reader.events.push(event);
        for (const [sub, last] of reader.subscribers) {
          if (event.offset > last) {
            reader.subscribers.set(sub, event.offset);
            sub.onEvent(event);
          }
        }
        if (endsStream(event)) break;
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
