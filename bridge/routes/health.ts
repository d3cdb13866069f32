// GET /healthz: up or down for anyone (a load balancer's probe); the stream counters only for a token holder. Nothing
// in it names versions, addresses or the systems behind the bridge.
import { tenantOf } from '../auth';
import type { Routes } from './context';

export const healthRoutes: Routes = (app, ctx) => {
  app.get('/healthz', async (req, reply) => {
    const up = await ctx.agio.temporal.connection.workflowService.getSystemInfo({}).then(
      () => true,
      (err: Error) => (req.log.warn({ err }, 'health check: Temporal does not answer'), false),
    );
    if (!up) return reply.status(503).send({ ok: false });
    if (req.headers.authorization === undefined) return { ok: true };
    tenantOf(req, ctx.tokens);
    return { ok: true, streams: ctx.hub.stats() };
  });
};
