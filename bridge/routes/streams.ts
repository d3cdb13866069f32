// A run's event stream: GET /runs/:id/events (SSE, resumable) and POST /runs/:id/stream-token, the short-lived
// run-scoped token a browser's EventSource sends as ?access_token= because it cannot send a bearer token.
import { streamTenantOf, tenantOf } from '../auth';
import { DEFAULT_MAX_STREAMS_PER_TENANT, TenantStreams } from '../quotas';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { describeRun, rootRunIdOf } from '../runs';
import { streamRunEvents } from '../sse-route';
import { RunParams, type Routes } from './context';

export const streamRoutes: Routes = (app, ctx) => {
  const streams = new TenantStreams(ctx.opts.maxStreamsPerTenant ?? DEFAULT_MAX_STREAMS_PER_TENANT);

  // A browser's EventSource cannot send a bearer token: it gets a short-lived token for one run, sent as ?access_token=.
  app.post('/runs/:id/stream-token', async (req, reply) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = RunParams.parse(req.params);
    await describeRun(ctx.agio.temporal, tenant, id);
    const minted = ctx.streamTokens.mint(tenant, id);
    return reply
      .status(201)
      .send({ ...minted, events: `/runs/${encodeURIComponent(id)}/events?access_token=${minted.token}` });
  });

  app.get('/runs/:id/events', async (req, reply) => {
    const { id } = RunParams.parse(req.params);
    const tenant = streamTenantOf(req, id, ctx.tokens, ctx.streamTokens);
    const description = await describeRun(ctx.agio.temporal, tenant, id);
    // Counted until the response closes (the client leaves, the run ends, the bridge shuts down): each open stream may
    // hold an upstream reader, so this cap bounds a tenant's readers and their Queries on this bridge.
    const close = streams.acquire(tenant);
    reply.raw.once('close', close);
    try {
      streamRunEvents(
        req,
        reply,
        ctx.hub,
        // A nested run that keeps its own event log says so in its memo (newer trees): its stream is read from there.
        { tenant, rootRunId: rootRunIdOf(description, id), runId: id, ownLog: ownLogOf(description) },
        ctx.opts.heartbeatMs ?? 15_000,
        ctx.opts.liveLane,
        ctx.openStreams,
      );
    } catch (err) {
      close();
      throw err;
    }
  });
};

/** Whether the run keeps its own event log (a nested run of a newer tree; its memo's `ownLog`). */
const ownLogOf = (description: WorkflowExecutionDescription): boolean =>
  (description.memo as { ownLog?: unknown } | undefined)?.ownLog === true;
