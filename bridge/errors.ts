// HTTP errors as JSON `{ error: { code, message } }` with the right status, one place for every route.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { InputTooLargeError } from '../client/agio-client';

/** An error a route throws on purpose: status, stable code, message for the caller. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** 404 for a run that does not exist or belongs to another tenant (the same answer for both). */
export function runNotFound(id: string): HttpError {
  return new HttpError(404, 'run_not_found', `no run with id "${id}"`);
}

/** Maps any error to the JSON error body. */
export function errorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void {
  if (err instanceof HttpError) {
    void reply.status(err.status).send({ error: { code: err.code, message: err.message } });
    return;
  }
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
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code =
      fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe.name === 'SyntaxError'
        ? 'malformed_json'
        : fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'body_too_large'
          : 'bad_request';
    void reply.status(fe.statusCode).send({ error: { code, message: fe.message } });
    return;
  }
  req.log.error(err);
  void reply.status(500).send({ error: { code: 'internal', message: 'internal error; see the bridge log' } });
}
