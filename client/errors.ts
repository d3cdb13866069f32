// The errors AgioClient and its run handles throw. Each sets `name`, and callers such as the bridge compare that rather
// than use instanceof, which fails when the error comes from another copy of this package.
import { WorkflowFailedError } from '@temporalio/client';

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

/** True when an error is a run's failure (as opposed to a connection problem). */
export function isRunFailure(err: unknown): err is WorkflowFailedError {
  return err instanceof WorkflowFailedError || (err as Error)?.name === 'WorkflowFailedError';
}
