// How a run's ending error is recognised and reported, and what a failed activity or child says; shared by agent
// runs, their tool calls and workflow agents.
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/workflow';

/** True for the SDK's continue-as-new signal, which must propagate untouched (it is not a failure). */
export function isContinueAsNew(err: unknown): boolean {
  return (err as Error)?.name === 'ContinueAsNew';
}

/** The `{ type, message }` a RUN_FAILED / RUN_CANCELLED event carries. */
export function errorSummary(err: unknown): { type: string; message: string } {
  const e = err as { type?: string; name?: string; message?: string };
  return { type: e?.type ?? e?.name ?? 'Error', message: e?.message ?? String(err) };
}

/** The innermost useful message of an activity or child workflow failure (timeouts, application errors). */
export function failureMessage(err: unknown): string {
  if ((err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause)
    return failureMessage(err.cause);
  if (err instanceof TimeoutFailure)
    return `timed out (${err.timeoutType === undefined ? 'timeout' : String(err.timeoutType).toLowerCase().replace(/_/g, ' ')})`;
  if (err instanceof ApplicationFailure) return err.message;
  return err instanceof Error ? err.message : String(err);
}
