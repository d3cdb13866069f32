// How a failed model-call attempt is thrown on: malformed answers are bounded, outages are not, and the next try is
// due after the provider's Retry-After or the retry policy's capped backoff.
import type { Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, MODEL_RETRY_MAX_INTERVAL_MS } from '../../common';
import { MALFORMED_MAX_ATTEMPTS, failedAttempt, nextAttemptDelayMs } from '../../activities/model/outage';

const info = (attempt: number) => ({ attempt, scheduledTimestampMs: 0 }) as Info;
const failure = (type: string, extra: { nextRetryDelay?: number } = {}) =>
  ApplicationFailure.create({ type, message: `${type} happened`, ...extra });

describe('failedAttempt (no event base: nothing to announce)', () => {
  it('keeps retrying a malformed answer until its last attempt, then makes it non-retryable', async () => {
    const early = await failedAttempt(
      failure(ErrorType.ModelMalformedResponse),
      info(MALFORMED_MAX_ATTEMPTS - 1),
      'r:1',
      undefined,
    );
    expect(early.nonRetryable).toBe(false);
    const last = await failedAttempt(
      failure(ErrorType.ModelMalformedResponse),
      info(MALFORMED_MAX_ATTEMPTS),
      'r:1',
      undefined,
    );
    expect(last).toMatchObject({ type: ErrorType.ModelMalformedResponse, nonRetryable: true });
    expect(last.message).toContain(`attempt ${MALFORMED_MAX_ATTEMPTS} of ${MALFORMED_MAX_ATTEMPTS}`);
  });

  it('never caps an outage', async () => {
    for (const type of [ErrorType.ModelServerError, ErrorType.ModelRateLimited, ErrorType.ModelConnectionError]) {
      expect((await failedAttempt(failure(type), info(500), 'r:1', undefined)).nonRetryable).toBe(false);
    }
  });
});

describe('nextAttemptDelayMs', () => {
  it("follows the provider's Retry-After when it gave one", () => {
    expect(nextAttemptDelayMs(failure(ErrorType.ModelServerError, { nextRetryDelay: 1234 }), 7)).toBe(1234);
  });

  it('otherwise doubles from 1 s up to the cap', () => {
    expect([1, 2, 3, 6, 7, 20].map((a) => nextAttemptDelayMs(failure(ErrorType.ModelServerError), a))).toEqual([
      1000,
      2000,
      4000,
      32_000,
      MODEL_RETRY_MAX_INTERVAL_MS,
      MODEL_RETRY_MAX_INTERVAL_MS,
    ]);
  });
});
