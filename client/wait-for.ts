// RunHandle.waitFor: the first event of a type in a run's stream (optionally of one nested run, optionally matching a
// test), read from the start of the run's log, so an event that happened before the call is found too.
import { endsLogOf, type AgioEvent, type AgioEventOf, type EventType, type RunStatus } from '../common';
import { statusOfTerminalEvent } from '../common/run-statuses';
import { RunClosedError } from './errors';

/** Options of `RunHandle.waitFor`. */
export interface WaitForOptions<E = AgioEvent> {
  /** Only an event this returns true for. */
  where?: (event: E) => boolean;
  /** Only an event of this run of the tree (the root's id for the root's own; default: any run of the tree). */
  runId?: string;
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The first event of `type` in `events` (a run's stream) that passes the options' tests. Rejects with
 * RunClosedError when the run that was to hold it (`runId`, or the stream's root) ends first; a terminal `type` itself
 * (RUN_COMPLETED, …) resolves with that event.
 */
export async function waitForEvent<K extends EventType>(
  events: AsyncIterable<AgioEvent>,
  rootRunId: string,
  type: K,
  opts: WaitForOptions<AgioEventOf<K>> = {},
): Promise<AgioEventOf<K>> {
  const runId = opts.runId ?? rootRunId;
  let rootEnded: RunStatus | undefined;
  for await (const event of events) {
    const wanted =
      event.type === type &&
      (opts.runId === undefined || event.runId === opts.runId) &&
      (opts.where?.(event as AgioEventOf<K>) ?? true);
    if (wanted) return event as AgioEventOf<K>;
    if (endsLogOf(runId, event))
      throw new RunClosedError(runId, statusOfTerminalEvent(event.type)!, `wait for ${type} in`);
    if (endsLogOf(rootRunId, event)) rootEnded = statusOfTerminalEvent(event.type);
  }
  opts.signal?.throwIfAborted();
  // The tree ended and `runId` never did: it is no run of this tree (or one that never started).
  throw new RunClosedError(rootRunId, rootEnded ?? 'completed', `wait for ${type} of run "${runId}" in`);
}
