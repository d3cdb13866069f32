// One upstream reader per run per bridge process, fanned out to all of its SSE clients. The reader keeps the
// events it has read so a client joining late (or reconnecting) is served from memory, and stops when the
// run's stream has ended or its last client has left.
import type { Client } from '@temporalio/client';
import { endsStream, type AgioEvent } from '../common';
import { readEvents } from '../client/event-reader';

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
  /** Events Queries the readers have made since the bridge started (what following runs costs upstream). */
  queries: number;
}

/** Shares one upstream reader per run among all SSE clients of this process. */
export class StreamHub {
  private readonly readers = new Map<string, Reader>();
  private started = 0;
  private queries = 0;

  constructor(private readonly client: Client) {}

  /** Subscribes to a run's events after `after`; returns the unsubscribe function. */
  subscribe(runId: string, after: number, sub: StreamSubscriber): () => void {
    let reader = this.readers.get(runId);
    if (!reader) {
      reader = { events: [], subscribers: new Map(), abort: new AbortController(), wake: new EventTarget(), ended: false };
      this.readers.set(runId, reader);
      this.started++;
      void this.pump(runId, reader);
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
    return { readersStarted: this.started, activeReaders: this.readers.size, subscribers, queries: this.queries };
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

  private async pump(runId: string, reader: Reader): Promise<void> {
    let error: Error | undefined;
    try {
      for await (const event of readEvents(this.client.workflow.getHandle(runId), { signal: reader.abort.signal, wake: reader.wake, onPoll: () => this.queries++ })) {
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
