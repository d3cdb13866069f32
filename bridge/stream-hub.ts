// One upstream reader per run per bridge process, fanned out to all of its SSE clients. The reader keeps the
// events it has read so a client joining late (or reconnecting) is served from memory, and stops when the
// run's stream has ended or its last client has left.
import type { Client } from '@temporalio/client';
import { endsStream, type AgioEvent } from '../common';
import { followRun, RunLogs, type RunLogStats } from '../client/run-log';
import type { EventLogStore } from '../stores';

/** A subscriber's callbacks. */
export interface StreamSubscriber {
  onEvent(event: AgioEvent): void;
  onEnd(error?: Error): void;
}

interface Reader {
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
  private readonly readers = new Map<string, Reader>();
  private started = 0;
  private queries = 0;
  private readonly logs: RunLogs;

  /** @param eventLog the stores' event logs: finished runs are read from there instead of being replayed */
  constructor(client: Client, eventLog?: EventLogStore) {
    this.logs = new RunLogs(client, eventLog);
  }

  /** Subscribes to a root run's events after `after` (the run is `tenant`'s); returns the unsubscribe function. */
  subscribe(tenant: string, runId: string, after: number, sub: StreamSubscriber): () => void {
    let reader = this.readers.get(runId);
    if (!reader) {
      reader = { events: [], subscribers: new Map(), abort: new AbortController(), wake: new EventTarget(), ended: false };
      this.readers.set(runId, reader);
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
    // A nested run's events are read through its root's reader (ids nest: `<root>/tool/<callId>`, `<root>/branch/…`).
    for (const [id, reader] of this.readers) if (runId === id || runId.startsWith(`${id}/`)) reader.wake.dispatchEvent(new Event('wake'));
  }

  /** Live counters. */
  stats(): HubStats {
    let subscribers = 0;
    for (const r of this.readers.values()) subscribers += r.subscribers.size;
    return { readersStarted: this.started, activeReaders: this.readers.size, subscribers, queries: this.queries, closedRuns: { ...this.logs.stats } };
  }

  /** Stops every reader (bridge shutdown). */
  close(): void {
    for (const reader of this.readers.values()) reader.abort.abort();
    this.readers.clear();
  }

  private leave(runId: string, reader: Reader, sub: StreamSubscriber): void {
    reader.subscribers.delete(sub);
    if (reader.subscribers.size === 0 && this.readers.get(runId) === reader) {
      reader.abort.abort();
      this.readers.delete(runId);
    }
  }

  private async pump(tenant: string, runId: string, reader: Reader): Promise<void> {
    let error: Error | undefined;
    try {
      for await (const event of followRun(this.logs, runId, { tenant, signal: reader.abort.signal, wake: reader.wake, onPoll: () => this.queries++ })) {
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
    if (this.readers.get(runId) === reader) this.readers.delete(runId);
  }
}
