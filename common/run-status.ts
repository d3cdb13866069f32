// Where a run is, in one vocabulary: what a run reports of itself (its state query), what it records (recordRun, the
// stores), and Temporal's execution statuses as run listings report them. Stored and recorded strings never change.
import { z } from 'zod';

/** Where a run is; `completed`, `failed` and `cancelled` are final. Runs record these strings: never rename one. */
export const RunPhase = z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']);
/** Where a run is. */
export type RunPhase = z.infer<typeof RunPhase>;

/** How a run ends. */
export type RunEnding = Extract<RunPhase, 'completed' | 'failed' | 'cancelled'>;

/** What a run reports of itself (state query, recordRun): a paused run is running, and its control state says paused. */
export type ReportedRunPhase = Exclude<RunPhase, 'paused'>;

/** True for a phase no later write may change. */
export function isFinalRunPhase(phase: RunPhase): phase is RunEnding {
  return phase === 'completed' || phase === 'failed' || phase === 'cancelled';
}

/**
 * Temporal's execution statuses, as run listings report and filter them: a run's phase as the server sees it, plus the
 * ends only the server knows (terminated, timed out) and the runs a continue-as-new closed.
 */
export const EXECUTION_STATUSES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
] as const;
/** One of {@link EXECUTION_STATUSES}. */
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
