// A live lane whose engine connects later: test beds take their options when a file is loaded, and a NATS lane
// connects in a beforeAll hook registered ahead of the bed's own.
import type { WireEvent, EventDraft } from '../../common';
import type { EventsFollow, LaneDelta, LiveLane } from '../../live/lane';

/** Forwards to `target`, which must be set before the first use. */
export class DeferredLane implements LiveLane {
  target?: LiveLane & { close(): Promise<void> };

  private get lane(): LiveLane {
    if (!this.target) throw new Error('DeferredLane used before its target was set');
    return this.target;
  }

  publish(rootRunId: string, events: EventDraft[]): void {
    this.lane.publish(rootRunId, events);
  }

  endStep(rootRunId: string, stepId: string, attempt: number): void {
    this.lane.endStep(rootRunId, stepId, attempt);
  }

  subscribe(rootRunId: string, after: number, onDelta: (delta: LaneDelta, stepEnded: boolean) => void): () => void {
    return this.lane.subscribe(rootRunId, after, onDelta);
  }

  publishEvents(rootRunId: string, events: WireEvent[]): void {
    this.lane.publishEvents(rootRunId, events);
  }

  followEvents(rootRunId: string, onEvents: (events: WireEvent[]) => void): EventsFollow {
    return this.lane.followEvents(rootRunId, onEvents);
  }

  async close(): Promise<void> {
    await this.target?.close();
  }
}
