// HTTP errors as JSON `{ error: { code, message } }` with the right status, one place for every route.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ZodError } from 'zod';
import { InputTooLargeError } from '../client/agio-client';
import { isTemporalUnavailable, RunNotFoundError } from '../client/errors';
import type { RunStatus } from '../common';

/** An error a route throws on purpose: status, stable code, message for the caller, and fields that say more. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent beside code and message (e.g. the `scope` a 403 lacks, the `limit` a 400 names). */
    readonly details?: Record<string, unknown>,
    /** Response headers (e.g. Retry-After on a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** 404 for a run that does not exist or belongs to another tenant (the same answer for both). */
export function runNotFound(id: string): HttpError {
  return new HttpError(404, 'run_not_found', `no run with id "${id}"`);
}

/** 409 for a run that has ended (or, for a pause, was never running): `status` says how. */
export function runNotRunning(id: string, status: RunStatus): HttpError {
  return new HttpError(409, 'run_not_running', `run "${id}" is ${status}`);
}

/** Most of an oversized body a bridge reads (and drops) so its 413 reaches the client, and for how long at most. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 15_000;

/**
 * Reads the rest of a request body and drops it, up to {@link DRAIN_MAX_BYTES} or {@link DRAIN_MAX_MS}. An answer sent
 * while the client is still sending closes the connection (Fastify: `connection: close`) over unread bytes, which the
 * kernel answers with a reset: the client sees ECONNRESET/EPIPE instead of the answer.
 */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    req.on('data', onData).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

/** Maps any error to the JSON error body. */
export function errorHandler(
  err: FastifyError | Error,
  req: FastifyRequest,
  reply: FastifyReply,
): void | Promise<void> {
  if (err instanceof HttpError) {
    if (err.headers) void reply.headers(err.headers);
    void reply.status(err.status).send({ error: { code: err.code, message: err.message, ...err.details } });
    return;
  }
  // A run a route looked up (RunHandle.describe with the caller's tenant) that is missing or another tenant's.
  if (err instanceof RunNotFoundError) return errorHandler(runNotFound(err.runId), req, reply);
  if (err instanceof InputTooLargeError) {
    void reply.status(413).send({ error: { code: 'input_too_large', message: err.message } });
    return;
  }
  if (err instanceof ZodError) {
    const message = err.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    void reply.status(400).send({ error: { code: 'invalid_request', message } });
    return;
  }
  const fe = err as FastifyError;
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return drain(req.raw).then(() => {
      void reply.status(413).send({ error: { code: 'body_too_large', message: fe.message } });
    });
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code =
      fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError ? 'malformed_json' : 'bad_request';
    void reply.status(fe.statusCode).send({ error: { code, message: fe.message } });
    return;
  }
  if (isTemporalUnavailable(err)) {
    // Not the caller's fault nor the bridge's: Temporal (or the workers a Query needs) did not answer in time.
    req.log.warn(err);
    void reply
      .status(503)
      .header('retry-after', '5')
      .send({ error: { code: 'temporal_unavailable', message: 'Temporal did not answer in time; retry shortly' } });
    return;
  }
  req.log.error(err);
  void reply.status(500).send({ error: { code: 'internal', message: 'internal error; see the bridge log' } });
}
