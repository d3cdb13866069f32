// The live lane inside one process (`agio serve`: worker and bridge together). Deltas are handed to subscribers as
// they are published and kept a while for readers that resume: a step's deltas until a little after its model call
// ended, and at most MAX_HELD per root run. Durable events go straight to the root's current readers.
import type { WireEvent, EventDraft } from '../common';
import { laneStepKey, type EventsFollow, type LaneDelta, type LiveLane } from './lane';

/** Deltas held per root run for readers that resume. */
const MAX_HELD = 20_000;
/** How long a step's deltas are held after its model call ended (its STEP_COMPLETED reaches readers before). */
const HELD_AFTER_END_MS = 60_000;

type Listener = (delta: LaneDelta, stepEnded: boolean) => void;

interface RootLane {
  held: LaneDelta[];
  /** `stepId#attempt` of model calls that have ended, with when. */
  ended: Map<string, number>;
  listeners: Set<Listener>;
  /** When a delta was last published (a lane nobody reads or writes for a while is dropped). */
  activeAt: number;
}

/** A live lane in memory. */
export class InProcessLane implements LiveLane {
  private readonly roots = new Map<string, RootLane>();
  /** Readers of each root's durable events. */
  private readonly eventReaders = new Map<string, Set<(events: WireEvent[]) => void>>();
  /** Starts from the clock, so positions handed out by an earlier process (a restarted serve) stay behind. */
  private seq = Date.now() * 1000;
  private publishes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  publish(rootRunId: string, events: EventDraft[]): void {
    const root = this.root(rootRunId);
    root.activeAt = this.now();
    if (++this.publishes % 1000 === 0) this.sweep();
    for (const event of events) {
      const delta = { seq: ++this.seq, event };
      root.held.push(delta);
      for (const listener of root.listeners) listener(delta, false);
    }
    if (root.held.length > MAX_HELD) root.held.splice(0, root.held.length - MAX_HELD);
  }

  endStep(rootRunId: string, stepId: string, attempt: number): void {
    const root = this.roots.get(rootRunId);
    if (!root) return;
    const now = this.now();
    root.ended.set(laneStepKey({ stepId, attempt }), now);
    // Forget steps that ended long ago, with their deltas.
    const stale = new Set([...root.ended].filter(([, at]) => now - at > HELD_AFTER_END_MS).map(([key]) => key));
    if (!stale.size) return;
    root.held = root.held.filter((d) => !stale.has(laneStepKey(d.event)));
    for (const key of stale) root.ended.delete(key);
    if (!root.held.length && !root.listeners.size) this.roots.delete(rootRunId);
  }

  subscribe(rootRunId: string, after: number, onDelta: Listener): () => void {
    const root = this.root(rootRunId);
    for (const delta of root.held) if (delta.seq > after) onDelta(delta, root.ended.has(laneStepKey(delta.event)));
    root.listeners.add(onDelta);
    return () => {
      root.listeners.delete(onDelta);
      if (!root.listeners.size && !root.held.length && this.roots.get(rootRunId) === root) this.roots.delete(rootRunId);
    };
  }

  publishEvents(rootRunId: string, events: WireEvent[]): void {
    for (const reader of this.eventReaders.get(rootRunId) ?? []) reader(events);
  }

  followEvents(rootRunId: string, onEvents: (events: WireEvent[]) => void): EventsFollow {
    const readers = this.eventReaders.get(rootRunId) ?? new Set();
    this.eventReaders.set(rootRunId, readers);
    readers.add(onEvents);
    return {
      ready: Promise.resolve(),
      close: () => {
        readers.delete(onEvents);
        if (!readers.size && this.eventReaders.get(rootRunId) === readers) this.eventReaders.delete(rootRunId);
      },
    };
  }

  private root(rootRunId: string): RootLane {
    let root = this.roots.get(rootRunId);
    if (!root)
      this.roots.set(rootRunId, (root = { held: [], ended: new Map(), listeners: new Set(), activeAt: this.now() }));
    return root;
  }

  /** Drops the lanes of runs nobody has published to or read for a while (a worker that died mid-step ends none). */
  private sweep(): void {
    const now = this.now();
    for (const [id, root] of this.roots)
      if (!root.listeners.size && now - root.activeAt > HELD_AFTER_END_MS) this.roots.delete(id);
  }
}
