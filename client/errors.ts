// The errors AgioClient and its run handles throw: Agio's, never Temporal's bare ones (Temporal's error stays their
// `cause`). Each has a stable `name` and, for a run's errors, the run id and an Agio error `type`. Code of this package
// (the bridge, the protocols) matches them with instanceof; only a caller holding a second copy of the package (a
// user's second install) needs to compare `name`.
import {
  CancelledFailure,
  ServiceError,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ErrorType, type RunStatus, type SubAgentFailure } from '../common';

/** Gives a class's prototype its `name` (Temporal's error classes define theirs read-only on their prototype). */
function nameOn(cls: abstract new (...args: never[]) => Error, name: string): void {
  Object.defineProperty(cls.prototype, 'name', { value: name, enumerable: true });
}

/** The Agio error type of a run's failure: the ApplicationFailure's type, or how Temporal ended it. */
function failureType(cause: unknown): string {
  if (cause instanceof TerminatedFailure) return ErrorType.Terminated;
  if (cause instanceof TimeoutFailure) return ErrorType.TimedOut;
  return (cause as { type?: string | null } | undefined)?.type ?? 'Error';
}

/**
 * A run that failed: `result()` rejects with it. `type` is the Agio error type (`OutputValidationError`,
 * `SubAgentsFailed`, `Terminated`, `TimedOut`, … see ErrorType), `cause` Temporal's failure. It is a
 * WorkflowFailedError too, so code written against Temporal's error keeps working.
 */
export class RunFailedError extends WorkflowFailedError {
  /** The Agio error type the run failed with. */
  readonly type: string;
  /** A workflow agent's failed sub-agents (type `SubAgentsFailed`). */
  readonly failures?: SubAgentFailure[];
  constructor(
    readonly runId: string,
    failure: WorkflowFailedError,
  ) {
    const cause = failure.cause as (Error & { details?: unknown[] }) | undefined;
    const type = failureType(cause);
    super(`run "${runId}" failed (${type}): ${cause?.message ?? failure.message}`, cause, failure.retryState);
    this.type = type;
    const failures = (cause?.details?.[0] as { failures?: SubAgentFailure[] } | undefined)?.failures;
    if (type === ErrorType.SubAgentsFailed && failures) this.failures = failures;
  }
}
nameOn(RunFailedError, 'RunFailedError');

/**
 * A run that was cancelled: `result()` rejects with it (`cause`: Temporal's CancelledFailure). A WorkflowFailedError
 * too.
 */
export class RunCancelledError extends WorkflowFailedError {
  /** Always `Cancelled`. */
  readonly type = 'Cancelled';
  constructor(
    readonly runId: string,
    failure: WorkflowFailedError,
  ) {
    super(`run "${runId}" was cancelled`, failure.cause, failure.retryState);
  }
}
nameOn(RunCancelledError, 'RunCancelledError');

/** No run with that id (or not in this namespace, or past its retention). `cause`: Temporal's WorkflowNotFoundError. */
export class RunNotFoundError extends Error {
  override name = 'RunNotFoundError';
  /** Always `RunNotFound`. */
  readonly type = 'RunNotFound';
  constructor(
    readonly runId: string,
    options?: { cause?: unknown },
  ) {
    super(`no run "${runId}"`, options);
  }
}

/**
 * The run has ended, so it can no longer be paused, resumed or cancelled: `status` says how it ended. `cause`:
 * Temporal's error.
 */
export class RunClosedError extends Error {
  override name = 'RunClosedError';
  /** Always `RunClosed`. */
  readonly type = 'RunClosed';
  constructor(
    readonly runId: string,
    readonly status: RunStatus,
    action: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot ${action} run "${runId}": it has ended (${status})`, options);
  }
}

/**
 * The run refused a request it was sent (an update: a pause while paused, a decision whose binding is stale or whose
 * call was escalated to a role the decider lacks, …): `type` is the Agio error type its handler threw
 * (`AlreadyPaused`, `StaleApproval`, `ApprovalEscalated`, … see ErrorType), `cause` the run's failure, whose message
 * says why. It is a WorkflowUpdateFailedError too, so code written against Temporal's error keeps working.
 */
export class RunRefusedError extends WorkflowUpdateFailedError {
  /** The Agio error type the run refused with (undefined for a failure without one). */
  readonly type?: string;
  constructor(
    readonly runId: string,
    failure: WorkflowUpdateFailedError,
  ) {
    super(failure.message, failure.cause);
    const type = (failure.cause as { type?: string | null } | undefined)?.type;
    if (type) this.type = type;
  }
}
nameOn(RunRefusedError, 'RunRefusedError');

/**
 * Temporal's answer to a call on a workflow it does not have open (or at all), from this copy of the SDK or another.
 */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (err as Error)?.name === 'WorkflowNotFoundError';
}

/**
 * Temporal's refusal of an update as Agio's {@link RunRefusedError}; any other error as it is. Temporal's errors are
 * known by name too, as {@link isNotFound} knows them: a client built on another copy of the SDK throws its own
 * classes.
 */
export function runRefusal(runId: string, err: unknown): unknown {
  if (err instanceof RunRefusedError) return err;
  return isUpdateFailed(err) ? new RunRefusedError(runId, err) : err;
}

/** gRPC's UNAVAILABLE and DEADLINE_EXCEEDED: the server was not reached, or nobody answered in time. */
const WAIT_AND_RETRY_CODES = new Set([14, 4]);

/**
 * Whether Temporal could not answer now, though it may in a moment: its server unreachable (a restart, a network
 * blip), or a Query no worker took in time (none polling, or all busy). Worth a retry, unlike a refusal.
 */
export function isTemporalUnavailable(err: unknown): boolean {
  const service = err instanceof ServiceError || (err as Error)?.name === 'ServiceError';
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return service && typeof code === 'number' && WAIT_AND_RETRY_CODES.has(code);
}

/** Temporal's refusal of an update (the handler threw, or there is none), from this copy of the SDK or another. */
export function isUpdateFailed(err: unknown): err is WorkflowUpdateFailedError {
  return err instanceof WorkflowUpdateFailedError || (err as Error)?.name === 'WorkflowUpdateFailedError';
}

/** A run input over the run's maxModelInputBytes: refused before anything is started. */
export class InputTooLargeError extends Error {
  override name = 'InputTooLargeError';
  constructor(
    message: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(message);
  }
}

/** No pending tool call with that id in the run's tree. */
export class UnknownToolCallError extends Error {
  override name = 'UnknownToolCallError';
}

/** A decision that can no longer be taken: the run that asked for it has ended. */
export class DecisionRejectedError extends Error {
  override name = 'DecisionRejectedError';
}

/** The run's failure Temporal reported, as Agio's error: RunCancelledError, RunFailedError, or `err` itself. */
export function runFailure(runId: string, err: unknown): unknown {
  if (!(err instanceof WorkflowFailedError) || err instanceof RunFailedError || err instanceof RunCancelledError)
    return err;
  return err.cause instanceof CancelledFailure ? new RunCancelledError(runId, err) : new RunFailedError(runId, err);
}

const RUN_ENDINGS = ['RunFailedError', 'RunCancelledError', 'WorkflowFailedError'];

/**
 * True when `err` says the run itself ended without its output: a {@link RunFailedError} or {@link RunCancelledError}
 * (what `RunHandle.result()` rejects with), or Temporal's WorkflowFailedError from `run.workflow`. False for anything
 * else, such as a connection problem or a {@link RunNotFoundError}, after which waiting again may succeed.
 */
export function isRunFailure(err: unknown): err is RunFailedError | RunCancelledError | WorkflowFailedError {
  return err instanceof WorkflowFailedError || RUN_ENDINGS.includes((err as Error)?.name);
}
