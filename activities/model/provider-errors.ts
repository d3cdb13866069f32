// Turns provider and network errors into ApplicationFailures with a stable type, so Temporal's retry policy
// does the right thing: rate limits wait for Retry-After, bad requests and auth errors fail at once.
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError } from 'openai';
import { ErrorType } from '../../common';

/** Reads Retry-After (seconds or an HTTP date) or retry-after-ms; returns milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) has a time of day; Date.parse alone accepts
  // garbage such as "-5" or "later 7" as some past date, which would mean "retry at once".
  if (!/\b\d{2}:\d{2}:\d{2}\b/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Classifies any error thrown while calling the model. `chunksReceived` (of the stream so far) tells a stream
 * that broke off mid-way from a call that never got an answer.
 */
export function classifyModelError(err: unknown, chunksReceived = 0): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIConnectionError) {
    return ApplicationFailure.create({
      type: ErrorType.ModelConnectionError,
      message: `model connection failed: ${err.message}`,
      cause: err,
    });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const message = `model provider error (HTTP ${err.status}): ${err.message.replace(/^\d{3}\s*/, '')}`;
    const status = err.status;
    if (status === 429) {
      const delay = retryAfterMs(err.headers as { get(name: string): string | null } | undefined);
      return ApplicationFailure.create({
        type: ErrorType.ModelRateLimited,
        message,
        nextRetryDelay: delay,
        cause: err,
      });
    }
    if (status === 401 || status === 403) {
      return ApplicationFailure.create({
        type: ErrorType.ModelAuthError,
        message: `${message} (check OPENAI_API_KEY)`,
        nonRetryable: true,
        cause: err,
      });
    }
    if (status === 400 || status === 404 || status === 422) {
      return ApplicationFailure.create({ type: ErrorType.ModelBadRequest, message, nonRetryable: true, cause: err });
    }
    if (status === 408 || status === 409 || status >= 500) {
      // A 503 may say when to come back (RFC 9110 Retry-After); the retry policy's backoff applies otherwise.
      const delay = retryAfterMs(err.headers as { get(name: string): string | null } | undefined);
      return ApplicationFailure.create({
        type: ErrorType.ModelServerError,
        message,
        nextRetryDelay: delay,
        cause: err,
      });
    }
    return ApplicationFailure.create({ type: ErrorType.ModelBadRequest, message, nonRetryable: true, cause: err });
  }
  if ((err as Error)?.name === 'SyntaxError') {
    return ApplicationFailure.create({
      type: ErrorType.ModelMalformedResponse,
      message: `model sent a malformed response: ${(err as Error).message}`,
      cause: err as Error,
    });
  }
  const e = err as Error;
  const what =
    chunksReceived > 0
      ? `model stream broke off after ${chunksReceived} chunks, without a finish reason`
      : 'model call failed';
  return ApplicationFailure.create({
    type: ErrorType.ModelConnectionError,
    message: `${what}: ${e?.message ?? String(err)}`,
    cause: e instanceof Error ? e : undefined,
  });
}
