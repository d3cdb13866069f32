// The codec endpoint (Temporal's codec server protocol), so the Temporal Web UI and CLI can show the payloads the
// payload codec encrypted in history to an operator: POST /codec/decode and /codec/encode with `{ payloads: [...] }`
// (proto JSON: base64 metadata values and data), for an `admin` token. A browser UI, which sends no bearer token,
// uses a codec link instead: an admin mints one (POST /codec/links) and sets `<bridge>/codec/link/<link>` as the UI's
// codec endpoint; it only decodes and encodes, for 12 hours, and its requests are not logged (the link is in the path).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Payload } from '../../client/payload-codecs';
import { apiRoute, defineRoute, type ApiAuth, type ApiRoute } from '../api-route';
import { CodecLinkAnswer, CodecPayloads } from '../api-schemas';
import { HttpError } from '../errors';
import { StreamTokens } from '../stream-tokens';
import type { Routes } from './context';

/** How long a codec link works. */
export const CODEC_LINK_TTL_MS = 12 * 60 * 60_000;
/** What a codec link is for, in the place a stream token names its run (a run id never contains a space). */
const CODEC_AUDIENCE = ' codec';
/** Payloads of one request: a history page's worth. */
const MAX_PAYLOADS = 1000;
/** A payload may be 2 MB in Temporal, a third more in base64: room for a few. */
const BODY_LIMIT = 16 * 1024 * 1024;

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const CodecBody = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), base64).nullish(), data: base64.nullish() }))
    .max(MAX_PAYLOADS),
});
type JsonPayload = z.infer<typeof CodecBody>['payloads'][number];

const fromJson = ({ metadata, data }: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(data ?? '', 'base64'),
});

const toJson = ({ metadata, data }: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(data ?? []).toString('base64'),
});

const codecRoute = (op: 'encode' | 'decode', path: string, auth: ApiRoute['auth'], params?: z.ZodObject) =>
  defineRoute({
    method: 'POST',
    path,
    summary: `${op === 'encode' ? 'Encode' : 'Decode'} payloads with the bridge's codecs (Temporal's codec server protocol)`,
    description: 'Answered only by a bridge with AGIO_CODEC_KEYS (404 otherwise).',
    tags: ['codec'],
    auth,
    params,
    body: CodecBody,
    headers: { 'x-namespace': { description: "The namespace the Temporal UI shows: must be this bridge's" } },
    responses: {
      200: CodecPayloads,
      400: 'invalid_request, wrong_namespace or codec_failed',
      401: 'unauthorized: no or an unknown bearer token, or (by link) an expired or forged codec link',
    },
    options: { bodyLimit: BODY_LIMIT, ...(path.includes(':link') ? { logLevel: 'silent' as const } : {}) },
  });

/** POST /codec/{encode,decode} and /codec/:namespace/{encode,decode} (admin), /codec/link/:link/… (a codec link). */
export const CODEC_ROUTES = (['encode', 'decode'] as const).flatMap((op) => [
  codecRoute(op, `/codec/${op}`, 'admin'),
  codecRoute(op, `/codec/:namespace/${op}`, 'admin', z.object({ namespace: z.string() })),
  codecRoute(
    op,
    `/codec/link/:link/${op}`,
    { note: 'a codec link from POST /codec/links, in the path' },
    z.object({ link: z.string() }),
  ),
]);

/** POST /codec/links. */
export const MintCodecLink = defineRoute({
  method: 'POST',
  path: '/codec/links',
  summary: "Mint a codec link (12 hours) to set as the Temporal Web UI's codec endpoint",
  tags: ['codec'],
  auth: 'admin',
  responses: { 200: CodecLinkAnswer },
});

export const codecRoutes: Routes = (app, ctx) => {
  // The very codecs the bridge's own client encodes and decodes with (AGIO_CODEC_KEYS): none, no endpoint.
  const codecs = ctx.agio.payloadCodecs();
  if (!codecs) return;
  const { namespace } = codecs;
  const links = new StreamTokens(ctx.opts.streamTokenSecret, CODEC_LINK_TTL_MS);

  const run = async (op: 'encode' | 'decode', req: FastifyRequest, body: z.infer<typeof CodecBody>) => {
    // X-Namespace (or the path) names the namespace the UI shows: this bridge's keys are for its own only. The Temporal
    // CLI sends an empty one when given no --namespace.
    const asked = (req.params as { namespace?: string }).namespace ?? req.headers['x-namespace'];
    if (asked && asked !== namespace)
      throw new HttpError(400, 'wrong_namespace', `this codec serves namespace "${namespace}", not "${String(asked)}"`);
    const payloads = body.payloads.map(fromJson);
    try {
      return { payloads: (await codecs[op](payloads)).map(toJson) };
    } catch (err) {
      throw new HttpError(400, 'codec_failed', `could not ${op} the payloads: ${(err as Error).message}`);
    }
  };
  // A codec link is checked before the body is read, as a bearer token is.
  const checkLink = (req: FastifyRequest) => {
    const verdict = links.verify((req.params as { link: string }).link, CODEC_AUDIENCE);
    if ('refused' in verdict) throw new HttpError(401, 'unauthorized', codecLinkRefusal(verdict.refused));
    return undefined;
  };
  // The protocol looks only at the last path segment, so /codec/<namespace>/decode (the CLI's template) works too.
  for (const route of CODEC_ROUTES) {
    const op = route.path.endsWith('encode') ? 'encode' : 'decode';
    const byLink = typeof route.auth === 'object';
    const registered = byLink
      ? { ...route, auth: { ...(route.auth as Exclude<ApiAuth, string>), check: checkLink } }
      : route;
    apiRoute(app, ctx.tokens, registered, async ({ req, body }) => run(op, req, body));
    // The browser's preflight of the same path: CORS answers it (when the UI's origin is allowed); this route only
    // keeps it out of the request log.
    if (byLink)
      apiRoute(
        app,
        ctx.tokens,
        {
          ...route,
          method: 'OPTIONS',
          auth: 'public',
          body: undefined,
          hidden: true,
          responses: { 204: { description: 'Preflight' } },
        },
        async ({ reply }) => reply.status(204).send(),
      );
  }

  apiRoute(app, ctx.tokens, MintCodecLink, async ({ req, caller: { tenant } }) => {
    const { token, expiresAt } = links.mint(tenant, CODEC_AUDIENCE);
    const origin = `${req.protocol}://${req.headers.host ?? req.host}`;
    return { endpoint: `${origin}/codec/link/${token}`, expiresAt };
  });
};

function codecLinkRefusal(refused: string): string {
  if (/expired/.test(refused)) return 'the codec link has expired: mint another with POST /codec/links';
  if (/another run/.test(refused)) return 'not a codec link';
  return refused.replace('stream token', 'codec link');
}
