// Whether a run is waiting out a model outage, read from Temporal's own record of the run's pending callModel
// activity (its attempt, last failure and next try). It needs nothing from the workflow, so it answers for any run,
// nested runs and runs started by older releases included.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT } from '../common';

/** A run's model call that has kept failing: shown by `GET /runs/:id`, its state and the CLI. */
export interface ModelOutage {
  /** The attempt running or waiting now (attempts before it failed). */
  attempt: number;
  /** The last attempt's failure. */
  reason: string;
  errorType?: string;
  /** When the last attempt failed, and when the next one starts (absent while an attempt runs). */
  lastFailedAt?: string;
  nextAttemptAt?: string;
  /** When the run stops waiting and fails (the end of its modelRetryWindowMs). */
  retryUntil?: string;
}

type Timestamp = { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined;

function isoTime(ts: Timestamp): string | undefined {
  if (!ts || ts.seconds == null) return undefined;
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return new Date(seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)).toISOString();
}

/** The outage a run is waiting out, or undefined when its model calls are not failing (or it runs none). */
export function modelOutageOf(description: WorkflowExecutionDescription): ModelOutage | undefined {
  const call = description.raw.pendingActivities?.find(
    (a) =>
      a.activityType?.name === 'callModel' && (a.attempt ?? 0) >= MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT && a.lastFailure,
  );
  if (!call) return undefined;
  const failure = call.lastFailure!;
  const errorType = failure.applicationFailureInfo?.type ?? undefined;
  const times = {
    lastFailedAt: isoTime(call.lastAttemptCompleteTime),
    nextAttemptAt: isoTime(call.nextAttemptScheduleTime),
    retryUntil: isoTime(call.expirationTime),
  };
  return {
    attempt: call.attempt!,
    reason: failure.message ?? 'unknown failure',
    ...(errorType ? { errorType } : {}),
    ...Object.fromEntries(Object.entries(times).filter(([, v]) => v !== undefined)),
  };
}
