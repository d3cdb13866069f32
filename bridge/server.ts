// The HTTP bridge: a Fastify app over an AgioClient. Bodies and params are validated with zod, errors are JSON,
// every run route is scoped to the caller's tenant, and run events stream as SSE through one shared reader.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { z } from 'zod';
import { stateView, type AgioClient } from '../client/agio-client';
import { stateQuery } from '../common/messages';
import { BadPageTokenError, RUN_STATUSES } from '../client/run-list';
import type { LiveLane } from '../live/lane';
import type { Stores } from '../stores';
import cors from '@fastify/cors';
import { streamTenantOf, tenantOf } from './auth';
import { StreamTokens } from './stream-tokens';
import { agentView } from './agents-view';
import { HttpError, errorHandler } from './errors';
import { describeRun, rootRunIdOf, runStatus } from './runs';
import { StartRunBody, idempotencyKeyOf, refuseAllowRules, runIdForKey } from './start-run';
import { streamRunEvents } from './sse-route';
import { StreamHub } from './stream-hub';
import { builtViewerDir, registerViewer } from './viewer-route';

/** What the bridge needs. */
export interface BridgeOptions {
  agio: AgioClient;
  /** token → tenant. */
  tokens: Map<string, string>;
  /** SSE comment heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** Sessions, traces and citations (the worker's stores: shared memory in one process, or MongoDB). */
  stores?: Stores;
  /** The live lane the worker's model deltas go to (`agio serve`: in process): merged into every SSE stream. */
  liveLane?: LiveLane;
  /** How long pause/resume wait for the run to park before answering 202 (default 10 s). */
  controlWaitMs?: number;
  /**
   * Accept `allow` rules in POST /runs' `permissions` (default false: only `deny` and `ask`). Per-run rules are checked
   * before the agent's own, so an `allow` skips approvals the agent's author required: enable only for trusted callers.
   */
  allowPermissionOverrides?: boolean;
  /**
   * Origins whose pages may call the bridge from a browser (CORS); none by default. `*` allows any origin (bearer
   * tokens are not cookies, so no credentials are involved).
   */
  corsOrigins?: string[];
  /** Secret of stream tokens (POST /runs/:id/stream-token); bridges behind one load balancer share it. Default: random per process. */
  streamTokenSecret?: string;
  /** How long a stream token may open a stream (default 5 minutes; a stream it opened lasts as long as the run). */
  streamTokenTtlMs?: number;
  /** The built run viewer served at /ui/ (default: the package's dist/ui); false serves none. */
  viewerDir?: string | false;
  /** Where the agents came from (an agents file's path), shown by GET /agents. */
  agentsSource?: string;
  logger?: boolean;
}

const DecisionBody = z.object({ message: z.string().max(4000).optional(), remember: z.boolean().optional(), by: z.string().max(200).optional() });
const ToolCallParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id'), callId: z.string().regex(/^[A-Za-z0-9._:-]{1,256}$/, 'malformed tool call id') });
const SessionParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'malformed session id') });
const ListRunsQuery = z.object({
  agent: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'agent: 1-128 letters, digits, . _ -').optional(),
  status: z.string().transform((s) => s.toUpperCase()).pipe(z.enum(RUN_STATUSES, { message: `status: one of ${RUN_STATUSES.join(', ').toLowerCase()}` })).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  pageToken: z.string().regex(/^[A-Za-z0-9_-]{1,4096}$/, 'pageToken: the nextPageToken of an earlier page').optional(),
}).strict();
const ControlBody = z.object({ reason: z.string().max(1000).optional(), by: z.string().max(200).optional() });

/** Longest path segment the router passes to a route (longer ones answer 400). */
const MAX_PARAM_LENGTH = 2048;

/** Run ids are workflow ids: Agio's own (`run-<uuid>`) or nested ones (`…/tool/<callId>`). */
export const RunParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id') });

/** Builds the Fastify app (not yet listening). */
export function createBridge(opts: BridgeOptions): FastifyInstance & { hub: StreamHub } {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 2 * 1024 * 1024,
    // Ids up to their own limits (a run id: 512 characters, percent-encoded maybe thrice as long) reach the routes'
    // validation, which answers 400 in the bridge's JSON error shape; Fastify's default (100) cut long nested run ids off.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // URLs the router itself rejects (bad percent-encoding, longer segments) answer in the same shape.
    frameworkErrors: (err, _req, reply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `a path segment is longer than ${MAX_PARAM_LENGTH} characters` : err.code === 'FST_ERR_BAD_URL' ? 'the URL has a malformed path segment' : err.message;
      void (reply as FastifyReply).status(400).send({ error: { code: 'invalid_request', message } });
    },
  });
  const { agio } = opts;
  const hub = new StreamHub(agio.temporal, opts.stores?.events);
  const streamTokens = new StreamTokens(opts.streamTokenSecret, opts.streamTokenTtlMs);
  if (opts.corsOrigins?.length) {
    const origins = opts.corsOrigins;
    void app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'last-event-id'],
      exposedHeaders: ['idempotent-replayed'],
      maxAge: 600,
    });
  }
  app.addHook('onClose', async () => hub.close());
  // After a control request (pause, resume, approve, deny, cancel) the run's stream has news soon: poll it now.
  app.addHook('onResponse', async (req) => {
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (req.method === 'POST' && typeof id === 'string') hub.wake(id);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'not_found', message: `no route ${req.method} ${req.url}` } });
  });

  if (opts.viewerDir !== false) registerViewer(app, opts.viewerDir ?? builtViewerDir());

  app.get('/healthz', async () => {
    await agio.temporal.connection.workflowService.getSystemInfo({});
    return { ok: true, streams: hub.stats() };
  });

  app.get('/agents', async (req) => {
    tenantOf(req, opts.tokens);
    return { ...(opts.agentsSource ? { source: opts.agentsSource } : {}), agents: agio.agents.list().map(agentView) };
  });

  app.post('/runs', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const key = idempotencyKeyOf(req);
    const { agent, input, ...settings } = StartRunBody.parse(req.body ?? {});
    refuseAllowRules(settings.permissions, opts.allowPermissionOverrides ?? false);
    if (!agio.agents.find(agent)) throw new HttpError(404, 'unknown_agent', `unknown agent "${agent}"; GET /agents lists them`);
    const run = await agio.start(agent, input, { tenant, ...settings, ...(key ? { runId: runIdForKey(tenant, key) } : {}) }).catch((err: Error) => {
      if (err.name !== 'IdempotencyConflictError') throw err;
      throw new HttpError(409, 'idempotency_conflict', `Idempotency-Key "${key}" was used for a different request: send that request again to get its run, or use a new key`);
    });
    // A repeat of an earlier request (same key, same body): its run, as the first answer gave it.
    if (!run.created) void reply.header('idempotent-replayed', 'true');
    return reply.status(run.created ? 201 : 200).send({ runId: run.runId, links: { self: `/runs/${run.runId}`, events: `/runs/${run.runId}/events` } });
  });

  app.get('/runs', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const query = ListRunsQuery.parse(req.query ?? {});
    try {
      return await agio.list({ tenant, agent: query.agent, status: query.status, pageSize: query.limit, pageToken: query.pageToken });
    } catch (err) {
      if (err instanceof BadPageTokenError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
  });

  app.get('/runs/:id', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    return runStatus(agio.temporal, tenant, id);
  });

  // A browser's EventSource cannot send a bearer token: it gets a short-lived token for one run, sent as ?access_token=.
  app.post('/runs/:id/stream-token', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    await describeRun(agio.temporal, tenant, id);
    const minted = streamTokens.mint(tenant, id);
    return reply.status(201).send({ ...minted, events: `/runs/${encodeURIComponent(id)}/events?access_token=${minted.token}` });
  });

  app.get('/runs/:id/events', async (req, reply) => {
    const { id } = RunParams.parse(req.params);
    const tenant = streamTenantOf(req, id, opts.tokens, streamTokens);
    const description = await describeRun(agio.temporal, tenant, id);
    streamRunEvents(req, reply, hub, { tenant, rootRunId: rootRunIdOf(description, id), runId: id }, opts.heartbeatMs ?? 15_000, opts.liveLane);
  });

  const stores = () => {
    if (!opts.stores) throw new HttpError(501, 'no_stores', 'this bridge has no stores configured (set MONGODB_URI)');
    return opts.stores;
  };

  app.get('/sessions/:id', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = SessionParams.parse(req.params);
    const session = await stores().sessions.getSession(tenant, id);
    if (!session) throw new HttpError(404, 'session_not_found', `no session with id "${id}"`);
    const steps = await Promise.all(session.runs.map(async (run) => ({ runId: run.runId, steps: await stores().sessions.listSteps(tenant, run.runId) })));
    return { ...session, steps };
  });

  app.get('/runs/:id/trace', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    // A nested run's spans are part of its root's trace.
    const root = rootRunIdOf(await describeRun(agio.temporal, tenant, id), id);
    const trace = await stores().traces.getTrace(tenant, root);
    if (!trace) throw new HttpError(404, 'trace_not_found', `no trace recorded for run "${root}" yet`);
    return trace;
  });

  app.get('/runs/:id/citations', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    await describeRun(agio.temporal, tenant, id);
    return { runId: id, citations: await stores().citations.listCitations(tenant, id) };
  });

  app.get('/runs/:id/state', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    const description = await describeRun(agio.temporal, tenant, id);
    return stateView(await agio.getHandle(id).workflow.query(stateQuery), description);
  });

  for (const action of ['pause', 'resume'] as const) {
    app.post(`/runs/:id/${action}`, async (req, reply) => {
      const tenant = tenantOf(req, opts.tokens);
      const { id } = RunParams.parse(req.params);
      const body = ControlBody.parse(req.body ?? {});
      const description = await describeRun(agio.temporal, tenant, id);
      if (description.status.name !== 'RUNNING') throw new HttpError(409, 'run_not_running', `run "${id}" is ${description.status.name.toLowerCase()}`);
      const request = { by: body.by ?? `api:${tenant}`, ...(body.reason ? { reason: body.reason } : {}) };
      const handle = agio.getHandle(id);
      // The update returns once the run is parked; a long activity may delay that, so answer 202 after a while.
      const done = action === 'pause' ? handle.pause(request) : handle.resume(request);
      const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), opts.controlWaitMs ?? 10_000).unref());
      const state = await Promise.race([done, timeout]);
      return reply.status(state ? 200 : 202).send(state ?? { paused: action === 'pause', parked: false, pending: true });
    });
  }

  for (const decision of ['approve', 'deny'] as const) {
    app.post(`/runs/:id/tool-calls/:callId/${decision}`, async (req) => {
      const tenant = tenantOf(req, opts.tokens);
      const { id, callId } = ToolCallParams.parse(req.params);
      const body = DecisionBody.parse(req.body ?? {});
      // The owner of the call is found in the root's event log, whichever run of the tree the URL names.
      const run = agio.getHandle(rootRunIdOf(await describeRun(agio.temporal, tenant, id), id));
      const by = body.by ?? `api:${tenant}`;
      try {
        return await (decision === 'approve' ? run.approve(callId, { remember: body.remember, by }) : run.deny(callId, { message: body.message, by }));
      } catch (err) {
        const e = err as Error & { cause?: Error };
        if (e.name === 'UnknownToolCallError') throw new HttpError(404, 'tool_call_not_found', e.message);
        if (e.name === 'WorkflowUpdateFailedError') throw new HttpError(409, 'decision_rejected', e.cause?.message ?? e.message);
        if (e.name === 'DecisionRejectedError') throw new HttpError(409, 'decision_rejected', e.message);
        throw err;
      }
    });
  }

  app.post('/runs/:id/cancel', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    const description = await describeRun(agio.temporal, tenant, id);
    if (description.status.name !== 'RUNNING') throw new HttpError(409, 'run_not_running', `run "${id}" is ${description.status.name.toLowerCase()}`);
    await agio.getHandle(id).cancel();
    return reply.status(202).send({ runId: id, cancelRequested: true });
  });

  return Object.assign(app, { hub });
}
