// Where a run is, in one vocabulary: what a run reports of itself (its state query), what it records (recordRun, the
// stores), and Temporal's execution statuses as run listings report them. Stored and recorded strings never change.
import { z } from 'zod';
import { RUN_STATUSES, type RunStatus } from './run-statuses';

/** Where a run is; `completed`, `failed` and `cancelled` are final. Runs record these strings: never rename one. */
export const RunPhase = z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']);
/** Where a run is. */
export type RunPhase = z.infer<typeof RunPhase>;

/** How a run ends. */
export type RunEnding = Extract<RunPhase, 'completed' | 'failed' | 'cancelled'>;

/**
 * What a run reports of itself (state query, recordRun): a paused run is running, and its control state says paused.
 */
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

export { RUN_STATUSES, type RunStatus } from './run-statuses';

/** Temporal's status of each {@link RunStatus}: the one place the two vocabularies meet. */
const EXECUTION_STATUS_OF: Record<RunStatus, ExecutionStatus> = {
  running: 'RUNNING',
  completed: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  terminated: 'TERMINATED',
  timed_out: 'TIMED_OUT',
  continued_as_new: 'CONTINUED_AS_NEW',
};

/**
 * The Agio status of a Temporal execution status name (`COMPLETED` → `completed`); undefined for one it has no name
 * for.
 */
export function runStatusOf(executionStatus: string): RunStatus | undefined {
  // Temporal's own pause of a workflow (not Agio's): the run is still open.
  if (executionStatus === 'PAUSED') return 'running';
  return RUN_STATUSES.find((s) => EXECUTION_STATUS_OF[s] === executionStatus);
}

/** Temporal's execution status name of an Agio status (what visibility queries filter by). */
export function executionStatusOf(status: RunStatus): ExecutionStatus {
  return EXECUTION_STATUS_OF[status];
}
