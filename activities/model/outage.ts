// A model call that keeps failing. A provider that answers malformed streams is up but broken: a few attempts, then
// the run fails. An outage (429, 5xx, network) is waited out for the run's retry window; once it has lasted a few
// attempts, the run's stream says so with MODEL_UNAVAILABLE (the reason, the attempt, the next try), so whoever
// watches the run sees why it waits, and can still pause or cancel it.
import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  ErrorType,
  logOwnerOf,
  MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT,
  MODEL_RETRY_MAX_INTERVAL_MS,
  type EventBase,
} from '../../common';
import { activityPublisher } from '../publish';

/** Attempts of a call whose provider answers malformed streams. */
export const MALFORMED_MAX_ATTEMPTS = 6;
/** From this attempt on, a retried failure is announced (about 3 s into an outage with the default backoff). */
export const ANNOUNCE_FROM_ATTEMPT = MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT;

/** When the retry policy tries again after `attempt` failed: the provider's Retry-After, else the backoff. */
export function nextAttemptDelayMs(failure: ApplicationFailure, attempt: number): number {
  const asked = failure.nextRetryDelay;
  if (typeof asked === 'number') return asked;
  return Math.min(1000 * 2 ** (attempt - 1), MODEL_RETRY_MAX_INTERVAL_MS);
}

/**
 * What a failed attempt throws: a malformed answer past its attempts becomes non-retryable; an outage past
 * {@link ANNOUNCE_FROM_ATTEMPT} is announced on the root's stream first (best effort).
 */
export async function failedAttempt(
  failure: ApplicationFailure,
  info: Info,
  stepId: string,
  base: EventBase | undefined,
): Promise<ApplicationFailure> {
  if (failure.nonRetryable) return failure;
  if (failure.type === ErrorType.ModelMalformedResponse && info.attempt >= MALFORMED_MAX_ATTEMPTS) {
    return ApplicationFailure.create({
      type: failure.type,
      message: `${failure.message} (attempt ${info.attempt} of ${MALFORMED_MAX_ATTEMPTS})`,
      nonRetryable: true,
      cause: failure,
    });
  }
  if (!base || info.attempt < ANNOUNCE_FROM_ATTEMPT) return failure;
  const now = Date.now();
  const publisher = activityPublisher(logOwnerOf(base), 'outage');
  publisher.publish(
    {
      ...base,
      type: 'MODEL_UNAVAILABLE',
      stepId,
      attempt: info.attempt,
      timestamp: now,
      data: {
        reason: failure.message,
        errorType: failure.type,
        failingSince: info.scheduledTimestampMs,
        nextAttemptAt: now + nextAttemptDelayMs(failure, info.attempt),
      },
    },
    true,
  );
  await publisher
    .flush()
    .catch((err: unknown) =>
      Context.current().log.warn('could not publish MODEL_UNAVAILABLE', { error: (err as Error).message, stepId }),
    );
  return failure;
}
