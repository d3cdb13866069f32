// Durable events a root pushes on the live lane as it appends them to its Wire, held for a reader until it can
// take them in offset order. A repeat replaces the held copy; an offset past the next one the reader needs is a
// gap (an event the lane lost, or one published before the reader followed), which the reader fills by Query.
import type { WireEvent } from '../common';

/** Follows a root's pushed events; returns when that starts to work and how to stop (a LiveLane's followEvents). */
export type EventPush = (onEvents: (events: WireEvent[]) => void) => { ready: Promise<void>; close(): void };

/** How long a reader waits for the lane to take its subscription before it reads on regardless (gaps are filled). */
const READY_WAIT_MS = 2000;

/** The pushed events one reader has not taken yet. */
export class PushedEvents {
  private readonly held = new Map<number, WireEvent>();
  private readonly follow: ReturnType<EventPush>;
  private arrived?: () => void;

  constructor(push: EventPush) {
    this.follow = push((events) => {
      for (const event of events) this.held.set(event.offset, event);
      this.arrived?.();
    });
  }

  /** Resolves once events pushed from now on reach this reader (at most a couple of seconds). */
  ready(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS)));
    return Promise.race([this.follow.ready, late]).finally(() => clearTimeout(timer));
  }

  /** The held events that follow `after` without a gap, in order; those at or before `after` are dropped. */
  take(after: number): WireEvent[] {
    for (const offset of this.held.keys()) if (offset <= after) this.held.delete(offset);
    const taken: WireEvent[] = [];
    for (let next = this.held.get(after + 1); next; next = this.held.get(after + 1)) {
      this.held.delete(next.offset);
      taken.push(next);
      after = next.offset;
    }
    return taken;
  }

  /** Whether events are held past a gap (call after `take`). */
  get gap(): boolean {
    return this.held.size > 0;
  }

  /** Waits until an event arrives, `ms` pass or `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.arrived = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.arrived = done;
    });
  }

  /** Stops following. */
  close(): void {
    this.follow.close();
    this.held.clear();
  }
}
