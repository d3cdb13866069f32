// The StepStreamSink that puts a model call's deltas into the root run's Wire: STEP_RETRY first when this
// is a retry, the first delta of the step at once, the rest in ≤ 100 ms batches.
import { Context } from '@temporalio/activity';
import type { EventBase } from '../common';
import type { StepStreamSink } from './model';
import type { ChunkDelta } from './model-stream';
import { activityPublisher, type WirePublisher } from './publish';

/** A sink publishing STEP_DELTA / STEP_RETRY events for one model call. */
export function wireStepSink(base: EventBase, stepId: string, publisher: WirePublisher = activityPublisher(base.rootRunId)): StepStreamSink {
  let attempt = 1;
  let first = true;
  return {
    async begin(info) {
      attempt = info.attempt;
      if (attempt > 1) {
        publisher.publish({ ...base, type: 'STEP_RETRY', stepId, attempt, timestamp: Date.now(), data: { reason: 'previous attempt did not finish; discard its partial output' } }, true);
      }
    },
    delta(delta: ChunkDelta) {
      publisher.publish({ ...base, type: 'STEP_DELTA', stepId, attempt, delta, timestamp: Date.now() }, first);
      first = false;
    },
    async end() {
      try {
        await publisher.flush();
      } catch (err) {
        // Deltas are a live view; the committed step (STEP_COMPLETED, from the workflow) is the record.
        Context.current().log.warn('could not publish step deltas', { error: (err as Error).message, stepId });
      }
    },
  };
}
