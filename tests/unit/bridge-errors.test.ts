// How the bridge answers errors no route threw on purpose: Temporal that could not answer in time is a 503 the caller
// may retry (before, a 500 "internal error"), anything else unexpected stays a 500.
import Fastify from 'fastify';
import { ServiceError } from '@temporalio/client';
import { errorHandler } from '../../bridge/errors';
import { isTemporalUnavailable } from '../../client/errors';

/** Temporal's client error for a gRPC failure with `code` (as @grpc/grpc-js sets it on the cause). */
const serviceError = (code: number, message: string) =>
  new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(message), { code }) });

async function answerTo(err: Error) {
  const app = Fastify({ logger: false });
  app.setErrorHandler(errorHandler);
  app.get('/state', () => Promise.reject(err));
  // Over a real socket: Fastify's inject loads an ES module jest cannot require.
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const res = await fetch(`${url}/state`);
    return { status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined, body: await res.json() };
  } finally {
    await app.close();
  }
}

describe('errors from Temporal', () => {
  it('answers 503 temporal_unavailable with Retry-After when no worker took a Query in time or the server is down', async () => {
    for (const err of [
      serviceError(4, '4 DEADLINE_EXCEEDED: query timed out before a worker could process it'),
      serviceError(14, '14 UNAVAILABLE: No connection established'),
    ])
      expect(await answerTo(err)).toEqual({
        status: 503,
        retryAfter: '5',
        body: { error: { code: 'temporal_unavailable', message: 'Temporal did not answer in time; retry shortly' } },
      });
  });

  it('keeps other failures a 500 that names nothing of Temporal', async () => {
    const refused = serviceError(3, '3 INVALID_ARGUMENT: bad query');
    expect(isTemporalUnavailable(refused)).toBe(false);
    expect(isTemporalUnavailable(Object.assign(new Error('not Temporal'), { cause: { code: 14 } }))).toBe(false);
    expect(await answerTo(refused)).toEqual({
      status: 500,
      retryAfter: undefined,
      body: { error: { code: 'internal', message: 'internal error; see the bridge log' } },
    });
  });
});
