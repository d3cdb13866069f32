// GET /healthz: up or down for anyone (a load balancer's probe); the stream counters only for a token holder. Nothing
// in it names versions, addresses or the systems behind the bridge.
import { tenantOf } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { HealthAnswer } from '../api-schemas';
import type { Routes } from './context';

/** GET /healthz. */
export const GetHealth = defineRoute({
  method: 'GET',
  path: '/healthz',
  summary: 'Up (200) or down (503); with a token, the stream counters too',
  tags: ['operations'],
  auth: {
    note: 'none needed; a bearer token, when sent, must be known and adds `streams`',
    optional: true,
    scope: 'token',
  },
  responses: { 200: HealthAnswer, 503: { description: 'Temporal does not answer', schema: HealthAnswer } },
});

export const healthRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, GetHealth, async ({ req, reply }) => {
    const up = await ctx.agio.ping().then(
      () => true,
      (err: Error) => (req.log.warn({ err }, 'health check: Temporal does not answer'), false),
    );
    if (!up) return reply.status(503).send({ ok: false });
    if (req.headers.authorization === undefined) return { ok: true };
    tenantOf(req, ctx.tokens);
    return { ok: true, streams: ctx.hub.stats() };
  });
};
