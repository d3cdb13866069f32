// The StepStreamSink that puts a model call's deltas into the root run's Wire: STEP_RETRY first when this
// is a retry, the first delta of the step within FIRST_DELTA_HOLD_MS, the rest in ≤ 100 ms batches, where adjacent
// deltas of the same kind are merged into one event. A stream that ends before its first delta was due sends none.
import { Context } from '@temporalio/activity';
import type { EventBase, EventDraft } from '../common';
import type { StepStreamSink } from './model';
import type { ChunkDelta } from './model-stream';
import { activityPublisher, type WirePublisher } from './publish';

/** `a` followed by `b` as one delta, when both are the same kind: text only, reasoning only, or the
 * arguments of one tool call (`b` without a new id or name). Undefined when they must stay apart. */
export function mergeDeltas(a: ChunkDelta, b: ChunkDelta): ChunkDelta | undefined {
  const k = deltaKind(a);
  if (!k || k !== deltaKind(b)) return undefined;
  if (k === 'text') return { content: a.content! + b.content! };
  if (k === 'reasoning') return { reasoningContent: a.reasoningContent! + b.reasoningContent! };
  const last = a.toolCalls!.at(-1);
  const [next, ...others] = b.toolCalls!;
  if (!last || !next || others.length || next.index !== last.index || next.id || next.name) return undefined;
  return { toolCalls: [...a.toolCalls!.slice(0, -1), { ...last, arguments: (last.arguments ?? '') + (next.arguments ?? '') }] };
}

/** What a delta carries, when it carries one kind of thing only. */
function deltaKind(d: ChunkDelta): 'text' | 'reasoning' | 'tool' | undefined {
  const kinds = ([['text', d.content], ['reasoning', d.reasoningContent], ['tool', d.toolCalls]] as const).filter(([, v]) => v !== undefined);
  return kinds.length === 1 ? kinds[0][0] : undefined;
}

/**
 * How long the first delta of a step waits before it is sent. A stream that is over by then (a fast model, a
 * short answer) sends no deltas at all: its STEP_COMPLETED follows at once with the whole step, and the model
 * call neither waits for a signal nor costs the root a workflow task for a preview nobody could see. Against a
 * real model's time to first token (hundreds of ms) the hold is small.
 */
export const FIRST_DELTA_HOLD_MS = 20;

/** A sink publishing STEP_DELTA / STEP_RETRY events for one model call. */
export function wireStepSink(base: EventBase, stepId: string, publisher: WirePublisher = activityPublisher(base.rootRunId), holdMs = FIRST_DELTA_HOLD_MS): StepStreamSink {
  let attempt = 1;
  let first = true;
  // Only a STEP_DELTA of this step and attempt still waiting in the buffer takes more text; it keeps its timestamp.
  const mergeWith = (delta: ChunkDelta) => (last: EventDraft) => {
    if (last.type !== 'STEP_DELTA' || last.stepId !== stepId || last.attempt !== attempt || !last.delta) return undefined;
    const merged = mergeDeltas(last.delta, delta);
    return merged && { ...last, delta: merged };
  };
  return {
    async begin(info) {
      attempt = info.attempt;
      if (attempt > 1) {
        publisher.publish({ ...base, type: 'STEP_RETRY', stepId, attempt, timestamp: Date.now(), data: { reason: 'previous attempt did not finish; discard its partial output' } }, true);
      }
    },
    delta(delta: ChunkDelta) {
      publisher.publish({ ...base, type: 'STEP_DELTA', stepId, attempt, delta, timestamp: Date.now() }, false, mergeWith(delta));
      if (first) publisher.flushWithin(holdMs);
      first = false;
    },
    async end() {
      // Nothing sent yet (no STEP_RETRY, first delta not due): the committed step will carry all of it.
      if (!publisher.started) return publisher.discard();
      try {
        await publisher.flush();
      } catch (err) {
        // Deltas are a live view; the committed step (STEP_COMPLETED, from the workflow) is the record.
        Context.current().log.warn('could not publish step deltas', { error: (err as Error).message, stepId });
      }
    },
  };
}
