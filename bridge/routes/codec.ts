// The codec endpoint (Temporal's codec server protocol), so the Temporal Web UI and CLI can show the payloads the
// payload codec encrypted in history to an operator: POST /codec/decode and /codec/encode with `{ payloads: [...] }`
// (proto JSON: base64 metadata values and data), for an `admin` token. A browser UI, which sends no bearer token,
// uses a codec link instead: an admin mints one (POST /codec/links) and sets `<bridge>/codec/link/<link>` as the UI's
// codec endpoint; it only decodes and encodes, for 12 hours, and its requests are not logged (the link is in the path).
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerOf } from '../auth';
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

export const codecRoutes: Routes = (app, ctx) => {
  // The very codecs the bridge's own client encodes and decodes with (AGIO_CODEC_KEYS): none, no endpoint.
  const codecs = ctx.agio.temporal.workflow.options.loadedDataConverter.payloadCodecs;
  if (!codecs.length) return;
  const namespace = ctx.agio.temporal.options.namespace;
  const links = new StreamTokens(ctx.opts.streamTokenSecret, CODEC_LINK_TTL_MS);

  const run = async (op: 'encode' | 'decode', req: FastifyRequest) => {
    // X-Namespace (or the path) names the namespace the UI shows: this bridge's keys are for its own only. The Temporal
    // CLI sends an empty one when given no --namespace.
    const asked = (req.params as { namespace?: string }).namespace ?? req.headers['x-namespace'];
    if (asked && asked !== namespace)
      throw new HttpError(400, 'wrong_namespace', `this codec serves namespace "${namespace}", not "${String(asked)}"`);
    const payloads = CodecBody.parse(req.body ?? {}).payloads.map(fromJson);
    try {
      return { payloads: (await apply(codecs, op, payloads)).map(toJson) };
    } catch (err) {
      throw new HttpError(400, 'codec_failed', `could not ${op} the payloads: ${(err as Error).message}`);
    }
  };
  const byToken = (op: 'encode' | 'decode') => async (req: FastifyRequest) => {
    callerOf(req, ctx.tokens, 'admin');
    return run(op, req);
  };
  const byLink = (op: 'encode' | 'decode') => async (req: FastifyRequest, reply: FastifyReply) => {
    const verdict = links.verify((req.params as { link: string }).link, CODEC_AUDIENCE);
    if ('refused' in verdict)
      return reply.status(401).send({ error: { code: 'unauthorized', message: codecLinkRefusal(verdict.refused) } });
    return run(op, req);
  };
  for (const op of ['encode', 'decode'] as const) {
    // The protocol looks only at the last path segment, so /codec/<namespace>/decode (the CLI's template) works too.
    app.post(`/codec/${op}`, { bodyLimit: BODY_LIMIT }, byToken(op));
    app.post(`/codec/:namespace/${op}`, { bodyLimit: BODY_LIMIT }, byToken(op));
    app.post(`/codec/link/:link/${op}`, { bodyLimit: BODY_LIMIT, logLevel: 'silent' }, byLink(op));
    // The browser's preflight of the same path: CORS answers it (when the UI's origin is allowed); this route only
    // keeps it out of the request log.
    app.options(`/codec/link/:link/${op}`, { logLevel: 'silent' }, async (_req, reply) => reply.status(204).send());
  }

  app.post('/codec/links', async (req) => {
    const { tenant } = callerOf(req, ctx.tokens, 'admin');
    const { token, expiresAt } = links.mint(tenant, CODEC_AUDIENCE);
    const origin = `${req.protocol}://${req.headers.host ?? req.host}`;
    return { endpoint: `${origin}/codec/link/${token}`, expiresAt };
  });
};

/** Codecs apply in order on encode and in reverse on decode, as the SDK applies them. */
async function apply(codecs: PayloadCodec[], op: 'encode' | 'decode', payloads: Payload[]): Promise<Payload[]> {
  let out = payloads;
  for (const codec of op === 'encode' ? codecs : [...codecs].reverse()) out = await codec[op](out);
  return out;
}

function codecLinkRefusal(refused: string): string {
  if (/expired/.test(refused)) return 'the codec link has expired: mint another with POST /codec/links';
  if (/another run/.test(refused)) return 'not a codec link';
  return refused.replace('stream token', 'codec link');
}
