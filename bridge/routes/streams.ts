// A run's event stream: GET /runs/:id/events (SSE, resumable) and POST /runs/:id/stream-token, the short-lived
// run-scoped token a browser's EventSource sends as ?access_token= because it cannot send a bearer token.
import { z } from 'zod';
import { AgioEvent } from '../../common/events';
import { streamTenantOf } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { ApiErrorBody, StreamTokenAnswer } from '../api-schemas';
import { DEFAULT_MAX_STREAMS_PER_TENANT, TenantStreams } from '../quotas';
import { streamRunEvents } from './event-stream';
import { RunParams, type Routes } from './context';

/** POST /runs/:id/stream-token. */
export const PostStreamToken = defineRoute({
  method: 'POST',
  path: '/runs/:id/stream-token',
  summary: "A short-lived token for one run's events, for a browser's EventSource (?access_token=)",
  tags: ['streams'],
  auth: 'read',
  params: RunParams,
  responses: { 201: StreamTokenAnswer, 404: 'run_not_found' },
});

/** GET /runs/:id/events. */
export const GetRunEvents = defineRoute({
  method: 'GET',
  path: '/runs/:id/events',
  summary: "The run's events as Server-Sent Events, resumable (Last-Event-ID or ?after=)",
  description:
    "Each event: `id:` its position (resume after it), `event:` its type (RUN_STARTED, STEP_COMPLETED, TOOL_AUTH_REQUIRED, RUN_COMPLETED…), `data:` the event as JSON. Comments (`: ping`) keep the connection open; the stream ends after the run's terminal event.",
  tags: ['streams'],
  // Its own rule (routes/streams.ts): read from a bearer token, or the run's stream token without one.
  auth: {
    note: 'a bearer token with "read", or a stream token of this run in ?access_token=',
    scope: 'read',
    streamToken: true,
  },
  params: RunParams,
  query: z.object({
    after: z.string().optional().describe('Resume after this event id (as Last-Event-ID)'),
    access_token: z.string().optional().describe('A stream token from POST /runs/{id}/stream-token'),
  }),
  headers: { 'last-event-id': { description: 'Resume after this event id (an offset ≥ -1, or a stream position)' } },
  responses: {
    200: {
      description: "The event stream; each frame's data is an AgioEvent (x-event-data)",
      contentType: 'text/event-stream',
      eventData: { name: 'AgioEvent', schema: AgioEvent },
    },
    400: 'invalid_request or invalid_offset',
    401: 'unauthorized: no token, an unknown one, or a stream token forged, expired or for another run',
    404: 'run_not_found',
    429: {
      description: "quota_exceeded: the tenant's open streams are at the bridge's cap",
      schema: ApiErrorBody,
      headers: { 'retry-after': 'seconds' },
    },
  },
});

export const streamRoutes: Routes = (app, ctx) => {
  const streams = new TenantStreams(ctx.opts.maxStreamsPerTenant ?? DEFAULT_MAX_STREAMS_PER_TENANT);

  // A browser's EventSource cannot send a bearer token: it gets a short-lived token for one run, sent as
  // ?access_token=.
  apiRoute(app, ctx.tokens, PostStreamToken, async ({ reply, caller: { tenant }, params: { id } }) => {
    await ctx.agio.getHandle(id).describe({ tenant });
    const minted = ctx.streamTokens.mint(tenant, id);
    return reply
      .status(201)
      .send({ ...minted, events: `/runs/${encodeURIComponent(id)}/events?access_token=${minted.token}` });
  });

  apiRoute(app, ctx.tokens, GetRunEvents, async ({ req, reply, params: { id } }) => {
    const tenant = streamTenantOf(req, id, ctx.tokens, ctx.streamTokens);
    const run = await ctx.agio.getHandle(id).describe({ tenant });
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
        { tenant, rootRunId: run.rootRunId, runId: id, ownLog: run.ownLog },
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
