// Model error handling: Retry-After parsing, and the mapping of openai's error classes (and plain errors)
// onto ApplicationFailure types that Temporal's retry policy acts on.
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { type APIError } from 'openai';
import { classifyModelError, retryAfterMs } from '../../activities/model/provider-errors';
import { ErrorType, NON_RETRYABLE_MODEL_ERRORS } from '../../common';

function headers(values: Record<string, string> = {}): Headers {
  return new Headers(values);
}

/** An error exactly as the openai client throws it for an HTTP error response. */
function apiError(
  status: number,
  extraHeaders: Record<string, string> = {},
  message = `scripted error ${status}`,
): APIError {
  return OpenAI.APIError.generate(
    status,
    { error: { message, type: 'invalid_request_error', param: null, code: null } },
    undefined,
    headers(extraHeaders),
  );
}

describe('retryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads whole seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(retryAfterMs(headers({ 'retry-after': '0' }), now)).toBe(0);
  });

  it('reads decimal seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(headers({ 'retry-after': '0.25' }), now)).toBe(250);
  });

  it('reads an HTTP date relative to now, and clamps a past date to 0', () => {
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'Wednesday, 01-Jan-25 00:00:30 GMT' }), now)).toBe(30_000);
  });

  it('prefers retry-after-ms over retry-after', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '350', 'retry-after': '9' }), now)).toBe(350);
  });

  it('falls back to retry-after when retry-after-ms is not a number', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': 'soon', 'retry-after': '2' }), now)).toBe(2000);
  });

  it('returns undefined without headers or without either header', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs(headers(), now)).toBeUndefined();
    expect(retryAfterMs(headers({ 'x-other': '5' }), now)).toBeUndefined();
  });

  it.each(['soon', 'abc', '5s', '-5', '1 2', 'later 7', '1,5', 'Infinity'])(
    'returns undefined for the garbage value %j',
    (value) => {
      expect(retryAfterMs(headers({ 'retry-after': value }), now)).toBeUndefined();
    },
  );
});

describe('classifyModelError', () => {
  it('maps 429 to a retryable ModelRateLimited failure that waits for Retry-After', () => {
    const err = apiError(429, { 'retry-after': '3' }, 'Rate limit reached');
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const f = classifyModelError(err);
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f.type).toBe(ErrorType.ModelRateLimited);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(3000);
    expect(f.message).toBe('model provider error (HTTP 429): Rate limit reached');
    expect(f.cause).toBe(err);
  });

  it('leaves the delay to the retry policy for a 429 without Retry-After', () => {
    const f = classifyModelError(apiError(429));
    expect(f.type).toBe(ErrorType.ModelRateLimited);
    expect(f.nextRetryDelay).toBeUndefined();
  });

  it.each([401, 403])('maps %i to a non-retryable ModelAuthError that names the API key', (status) => {
    const f = classifyModelError(apiError(status));
    expect(f.type).toBe(ErrorType.ModelAuthError);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain(`HTTP ${status}`);
    expect(f.message).toContain('OPENAI_API_KEY');
  });

  it.each([400, 404, 422])('maps %i to a non-retryable ModelBadRequest', (status) => {
    const f = classifyModelError(apiError(status, {}, 'bad input'));
    expect(f.type).toBe(ErrorType.ModelBadRequest);
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toBe(`model provider error (HTTP ${status}): bad input`);
  });

  it.each([500, 502, 503, 408, 409])('maps %i to a retryable ModelServerError', (status) => {
    const f = classifyModelError(apiError(status));
    expect(f.type).toBe(ErrorType.ModelServerError);
    expect(f.nonRetryable).toBe(false);
    expect(NON_RETRYABLE_MODEL_ERRORS).not.toContain(f.type);
  });

  it('maps an APIConnectionError (and its timeout subclass) to ModelConnectionError', () => {
    const f = classifyModelError(new OpenAI.APIConnectionError({ message: 'socket hang up' }));
    expect(f.type).toBe(ErrorType.ModelConnectionError);
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toContain('socket hang up');
    expect(classifyModelError(new OpenAI.APIConnectionTimeoutError()).type).toBe(ErrorType.ModelConnectionError);
  });

  it('maps a SyntaxError (unparseable body) to ModelMalformedResponse', () => {
    const f = classifyModelError(new SyntaxError('Unexpected token < in JSON at position 0'));
    expect(f.type).toBe(ErrorType.ModelMalformedResponse);
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toContain('Unexpected token <');
  });

  it('maps an arbitrary Error to a retryable ModelConnectionError keeping it as the cause', () => {
    const err = new Error('terminated');
    const f = classifyModelError(err);
    expect(f.type).toBe(ErrorType.ModelConnectionError);
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toBe('model call failed: terminated');
    expect(f.cause).toBe(err);
  });

  it('says how far a stream got when it broke off mid-way', () => {
    const f = classifyModelError(new Error('terminated'), 3);
    expect(f.type).toBe(ErrorType.ModelConnectionError);
    expect(f.message).toBe('model stream broke off after 3 chunks, without a finish reason: terminated');
  });

  it('maps a thrown non-Error value to ModelConnectionError', () => {
    const f = classifyModelError('boom');
    expect(f.type).toBe(ErrorType.ModelConnectionError);
    expect(f.message).toContain('boom');
  });

  it('returns an ApplicationFailure unchanged', () => {
    const original = ApplicationFailure.create({ type: 'Custom', message: 'already classified', nonRetryable: true });
    expect(classifyModelError(original)).toBe(original);
  });
});
