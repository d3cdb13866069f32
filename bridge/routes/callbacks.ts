// POST /callbacks/:token: where a callback tool's outside work sends its result (docs/ARCHITECTURE.md, "Callback
// tools"). The signed token is the credential (no bearer token): checked before anything touches Temporal, and every
// refusal says what is wrong with the token or the result, never which run or tenant it would have reached.
import { z } from 'zod';
import { CallbackResult } from '../../common';
import { CallbackRefusedError } from '../../client/callbacks';
import { CallbackTokens } from '../../platform/callback-tokens';
import { apiRoute, defineRoute } from '../api-route';
import { HttpError } from '../errors';
import type { Routes } from './context';

/** Default of the largest callback body a bridge reads (a result is the tool's output: the model reads it). */
export const CALLBACK_BODY_LIMIT = 256 * 1024;

/** The token in the callback URL. */
export const CallbackParams = z.object({ token: z.string().min(1).max(2048) });
/** What the bridge answers an accepted result (nothing about the run). */
export const CallbackAnswer = z.object({ completed: z.literal(true) });

/** The token, checked first: 401 when it is not one of ours (or the bridge takes none), 410 when it has expired. */
function checkToken(tokens: CallbackTokens | undefined, token: unknown) {
  const verdict = tokens && typeof token === 'string' ? tokens.verify(token) : ({ refused: 'invalid' } as const);
  if ('refused' in verdict) {
    if (verdict.refused === 'expired')
      throw new HttpError(
        410,
        'callback_expired',
        'this callback has expired: its tool call no longer waits for a result',
      );
    throw new HttpError(401, 'invalid_callback', 'this is not a valid callback URL');
  }
  return verdict.claims;
}

/** POST /callbacks/:token. */
export const PostCallback = defineRoute({
  method: 'POST',
  path: '/callbacks/:token',
  summary: "A callback tool's result, sent to the signed URL its start was given",
  description:
    'Body: {"result": any JSON} (a string reaches the model as it is) or {"error": "message"}. A result is taken once.',
  tags: ['callbacks'],
  auth: {
    note: 'No bearer token: the signed, expiring token in the URL is the credential (401 invalid, 410 expired).',
  },
  params: CallbackParams,
  body: CallbackResult,
  responses: {
    200: CallbackAnswer,
    401: 'invalid_callback: not a valid callback URL',
    404: 'callback_not_found: no tool call waits for this callback',
    409: 'callback_already_completed: a result was already taken for this call',
    410: 'callback_expired: the call timed out (or its run ended) before the result came',
  },
});

export const callbackRoutes: Routes = (app, ctx) => {
  const tokens = ctx.opts.callbackSecret ? new CallbackTokens(ctx.opts.callbackSecret) : undefined;
  // The token is checked before the body is read: a forged or expired URL learns nothing about what it would reach.
  const check = (req: { params: unknown }) => {
    checkToken(tokens, (req.params as { token?: unknown } | undefined)?.token);
    return undefined;
  };
  const route: typeof PostCallback = {
    ...PostCallback,
    auth: { ...(PostCallback.auth as { note: string }), check },
    options: { bodyLimit: ctx.opts.callbackBodyLimit ?? CALLBACK_BODY_LIMIT },
  };
  apiRoute(app, ctx.tokens, route, async ({ params, body }) => {
    checkToken(tokens, params.token);
    try {
      await ctx.agio.completeCallback(params.token, body, { via: 'url' });
    } catch (err) {
      if (!(err instanceof CallbackRefusedError)) throw err;
      if (err.reason === 'already_completed')
        throw new HttpError(409, 'callback_already_completed', 'a result was already taken for this callback');
      if (err.reason === 'expired')
        throw new HttpError(
          410,
          'callback_expired',
          'this callback has expired: its tool call no longer waits for a result',
        );
      if (err.reason === 'invalid') throw new HttpError(400, 'invalid_request', err.message);
      throw new HttpError(404, 'callback_not_found', 'no tool call waits for this callback');
    }
    return { completed: true as const };
  });
};
