// The StepStreamSink that puts a model call's deltas into the root run's Wire: STEP_RETRY first when this
// is a retry, the first delta of the step within FIRST_DELTA_HOLD_MS, the rest in ≤ 100 ms batches, where adjacent
// deltas of the same kind are merged into one event. A stream that ends before its first delta was due sends none.
import { Context } from '@temporalio/activity';
import { logOwnerOf, type EventBase, type EventDraft } from '../../common';
import type { StepStreamSink } from './call-model';
import type { ChunkDelta } from './completion-stream';
import { activityPublisher, type WirePublisher } from '../publish';

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
  return {
    toolCalls: [...a.toolCalls!.slice(0, -1), { ...last, arguments: (last.arguments ?? '') + (next.arguments ?? '') }],
  };
}

/** What a delta carries, when it carries one kind of thing only. */
function deltaKind(d: ChunkDelta): 'text' | 'reasoning' | 'tool' | undefined {
  const kinds = (
    [
      ['text', d.content],
      ['reasoning', d.reasoningContent],
      ['tool', d.toolCalls],
    ] as const
  ).filter(([, v]) => v !== undefined);
  return kinds.length === 1 ? kinds[0][0] : undefined;
}

/**
 * How long the first delta of a step waits before it is sent. A stream that is over by then (a fast model, a
 * short answer) sends no deltas at all: its STEP_COMPLETED follows at once with the whole step, and the model
 * call neither waits for a signal nor costs the root a workflow task for a preview nobody could see. Against a
 * real model's time to first token (hundreds of ms) the hold is small.
 */
export const FIRST_DELTA_HOLD_MS = 20;

/**
 * How deltas into a root's Wire are paced by the root's history: every batch is a signal, and Temporal refuses
 * signals past 10,000 per execution and ends a run at 51,200 events. Up to an eighth of the budget, batches go every
 * 100 ms; from there the interval grows to 2 s at the budget, where deltas stop (never the run: the committed step
 * carries the whole text). A root that continues as new starts a fresh history, and deltas flow again.
 */
export interface DeltaBudget {
  /** The root's history length past which no more deltas are sent (default 8,000 events). */
  maxHistoryEvents: number;
  /** How often a streaming call reads the root's history length (default every 2 s). */
  checkEveryMs: number;
}

/** The default {@link DeltaBudget}. */
export const DEFAULT_DELTA_BUDGET: DeltaBudget = { maxHistoryEvents: 8000, checkEveryMs: 2000 };

/** The flush interval for a root with `historyLength` events, or `stop` once the budget is spent. */
export function deltaPacing(
  historyLength: number,
  budget: Pick<DeltaBudget, 'maxHistoryEvents'>,
): { intervalMs: number; stop: boolean } {
  const max = budget.maxHistoryEvents;
  if (historyLength >= max) return { intervalMs: 2000, stop: true };
  const free = max / 8;
  const filled = Math.max(0, historyLength - free) / (max - free);
  return { intervalMs: Math.round(100 + 1900 * filled), stop: false };
}

/** What a sink needs to pace itself: the root's history length, read now (undefined when it cannot be read). */
export type HistoryLength = () => Promise<number | undefined>;

/** The root's history length, through the activity's client. */
export const rootHistoryLength =
  (rootRunId: string): HistoryLength =>
  async () => {
    try {
      return (await Context.current().client.workflow.getHandle(rootRunId).describe()).historyLength;
    } catch {
      return undefined; // not read this time (outside an activity, a server blip): the pacing stays as it is
    }
  };

/** Logs through the activity's logger (outside an activity, e.g. in unit tests: nowhere). */
function logWarn(message: string, attrs: Record<string, unknown>): void {
  try {
    Context.current().log.warn(message, attrs);
  } catch {
    // no activity context
  }
}

/** What a model call's attempt > 1 announces first: readers drop the partial text of the step's earlier attempts. */
export function stepRetryEvent(base: EventBase, stepId: string, attempt: number): EventDraft {
  return {
    ...base,
    type: 'STEP_RETRY',
    stepId,
    attempt,
    timestamp: Date.now(),
    data: { reason: 'previous attempt did not finish; discard its partial output' },
  };
}

/**
 * A sink publishing STEP_DELTA / STEP_RETRY events for one model call, paced by the root's history (see DeltaBudget).
 */
export function wireStepSink(
  base: EventBase,
  stepId: string,
  publisher: WirePublisher = activityPublisher(logOwnerOf(base)),
  holdMs = FIRST_DELTA_HOLD_MS,
  budget: DeltaBudget = DEFAULT_DELTA_BUDGET,
  historyLength: HistoryLength = rootHistoryLength(logOwnerOf(base)),
): StepStreamSink {
  let attempt = 1;
  let first = true;
  let stopped = false;
  let pacer: NodeJS.Timeout | undefined;
  const pace = async () => {
    const length = await historyLength();
    if (length === undefined || stopped) return;
    const { intervalMs, stop } = deltaPacing(length, budget);
    publisher.flushIntervalMs = intervalMs;
    if (!stop) return;
    stopped = true;
    publisher.discard();
    logWarn(
      'stopped streaming deltas: the root run has used its history budget for them; the committed step carries the whole text',
      { rootRunId: base.rootRunId, historyLength: length, budget: budget.maxHistoryEvents },
    );
  };
  // Only a STEP_DELTA of this step and attempt still waiting in the buffer takes more text; it keeps its timestamp.
  const mergeWith = (delta: ChunkDelta) => (last: EventDraft) => {
    if (last.type !== 'STEP_DELTA' || last.stepId !== stepId || last.attempt !== attempt || !last.delta)
      return undefined;
    const merged = mergeDeltas(last.delta, delta);
    return merged && { ...last, delta: merged };
  };
  return {
    async begin(info) {
      attempt = info.attempt;
      if (attempt > 1) {
        publisher.publish(stepRetryEvent(base, stepId, attempt), true);
      }
    },
    delta(delta: ChunkDelta) {
      if (stopped) return;
      if (first) {
        // The first read when the first batch is due: a call over by then (most short answers) costs no read.
        const tick = () => {
          void pace();
          pacer = setTimeout(tick, budget.checkEveryMs);
        };
        pacer = setTimeout(tick, holdMs);
      }
      publisher.publish(
        { ...base, type: 'STEP_DELTA', stepId, attempt, delta, timestamp: Date.now() },
        false,
        mergeWith(delta),
      );
      if (first) publisher.flushWithin(holdMs);
      first = false;
    },
    async end() {
      clearTimeout(pacer);
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
