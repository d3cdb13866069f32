// The StepStreamSink of a worker with a live lane: a model call's deltas go to the lane as they arrive, not into the
// root's Wire, so they cost no workflow history and wait for no workflow task.
// STEP_RETRY stays durable: it goes into the Wire, so every reader learns to drop an earlier attempt's text.
import { logOwnerOf, type EventBase } from '../../common';
import type { LiveLane } from '../../live/lane';
import type { StepStreamSink } from './call-model';
import type { ChunkDelta } from './completion-stream';
import { activityPublisher } from '../publish';
import { stepRetryEvent } from './wire-step-sink';

/** A sink publishing one model call's deltas to the live lane. */
export function liveStepSink(
  lane: LiveLane,
  base: EventBase,
  stepId: string,
  retryPublisher = () => activityPublisher(logOwnerOf(base), 'retry'),
): StepStreamSink {
  let attempt = 1;
  return {
    async begin(info) {
      attempt = info.attempt;
      if (attempt === 1) return;
      const publisher = retryPublisher();
      publisher.publish(stepRetryEvent(base, stepId, attempt), true);
      // Best effort, like the deltas it announces: a reader that misses it still gets the committed step.
      await publisher.flush().catch(() => undefined);
    },
    delta(delta: ChunkDelta) {
      lane.publish(base.rootRunId, [{ ...base, type: 'STEP_DELTA', stepId, attempt, delta, timestamp: Date.now() }]);
    },
    async end() {
      lane.endStep(base.rootRunId, stepId, attempt);
    },
  };
}
