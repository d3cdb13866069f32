// GET /metrics (Prometheus's text format): the bridge's own metrics, then whatever the bridge was given to serve beside
// them (`agio serve`: its worker's, the Temporal SDK's included). Metrics span every tenant, so reading them takes an
// `admin` token (Prometheus sends it as its scrape's bearer credentials) unless the operator made them public
// (AGIO_METRICS_PUBLIC=1, for a bridge Prometheus reaches on a private network). Requests and quota refusals are
// counted here, by hooks.
import type { FastifyInstance } from 'fastify';
import type { BridgeMetrics } from '../../telemetry/metrics-bridge';
import { METRICS_CONTENT_TYPE } from '../../telemetry/metrics-worker';
import { callerOf } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { HttpError } from '../errors';
import type { BridgeContext } from './context';

/** GET /metrics. */
export const GetMetrics = defineRoute({
  method: 'GET',
  path: '/metrics',
  summary: "The bridge's metrics (and its worker's under agio serve) in Prometheus's text format",
  tags: ['operations'],
  auth: { note: 'an admin token, unless the bridge makes them public (AGIO_METRICS_PUBLIC=1)', scope: 'admin' },
  responses: { 200: { description: "Prometheus's text exposition format", contentType: 'text/plain' } },
});

/** The /metrics route and the hooks that count requests. */
export function metricsRoutes(app: FastifyInstance, ctx: BridgeContext, metrics: BridgeMetrics): void {
  app.addHook('onResponse', async (req, reply) => {
    metrics.request(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.addHook('onError', async (_req, _reply, err) => {
    if (err instanceof HttpError && err.code === 'quota_exceeded')
      metrics.quotaRefused(String(err.details?.quota ?? 'unknown'));
  });
  apiRoute(app, ctx.tokens, GetMetrics, async ({ req, reply }) => {
    if (!ctx.opts.metrics?.public) callerOf(req, ctx.tokens, 'admin');
    const extra = ctx.opts.metrics?.extra;
    const text = (await metrics.text()) + (extra ? await extra() : '');
    return reply.header('content-type', METRICS_CONTENT_TYPE).header('cache-control', 'no-store').send(text);
  });
}
