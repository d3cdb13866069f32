// The HTTP bridge: a Fastify app over an AgioClient. Bodies and params are validated with zod, errors are JSON,
// every run route is scoped to the caller's tenant, and run events stream as SSE through one shared reader.
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgioClient } from '../client/agio-client';
import { tenantOf } from './auth';
import { HttpError, errorHandler } from './errors';
import { describeRun, runStatus } from './runs';
import { streamRunEvents } from './sse-route';
import { StreamHub } from './stream-hub';

/** What the bridge needs. */
export interface BridgeOptions {
  agio: AgioClient;
  /** token → tenant. */
  tokens: Map<string, string>;
  /** SSE comment heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** How long pause/resume wait for the run to park before answering 202 (default 10 s). */
  controlWaitMs?: number;
  logger?: boolean;
}

const StartRunBody = z.object({
  agent: z.string().min(1),
  input: z.string().min(1).max(1_000_000),
  sessionId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'sessionId: 1-128 letters, digits, . _ : -').optional(),
});
const ControlBody = z.object({ reason: z.string().max(1000).optional(), by: z.string().max(200).optional() });

/** Run ids are workflow ids: Agio's own (`run-<uuid>`) or nested ones (`…/tool/<callId>`). */
export const RunParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id') });

/** Builds the Fastify app (not yet listening). */
export function createBridge(opts: BridgeOptions): FastifyInstance & { hub: StreamHub } {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: 2 * 1024 * 1024 });
  const { agio } = opts;
  const hub = new StreamHub(agio.temporal);
  app.addHook('onClose', async () => hub.close());
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'not_found', message: `no route ${req.method} ${req.url}` } });
  });

  app.get('/healthz', async () => {
    await agio.temporal.connection.workflowService.getSystemInfo({});
    return { ok: true, streams: hub.stats() };
  });

  app.get('/agents', async (req) => {
    tenantOf(req, opts.tokens);
    return {
      agents: agio.agents.list().map((a) =>
        a.kind === 'llm'
          ? { name: a.name, kind: a.kind, description: a.description, tools: a.tools.map((t) => (typeof t === 'string' ? t : t.name)) }
          : { name: a.name, kind: a.kind, description: a.description, subAgents: a.subAgents.map((s) => s.name) },
      ),
    };
  });

  app.post('/runs', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const body = StartRunBody.parse(req.body ?? {});
    if (!agio.agents.find(body.agent)) throw new HttpError(404, 'unknown_agent', `unknown agent "${body.agent}"; GET /agents lists them`);
    const run = await agio.start(body.agent, body.input, { tenant, sessionId: body.sessionId });
    return reply.status(201).send({ runId: run.runId, links: { self: `/runs/${run.runId}`, events: `/runs/${run.runId}/events` } });
  });

  app.get('/runs/:id', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    return runStatus(agio.temporal, tenant, id);
  });

  app.get('/runs/:id/events', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    await describeRun(agio.temporal, tenant, id);
    streamRunEvents(req, reply, hub, id, opts.heartbeatMs ?? 15_000);
  });

  app.get('/runs/:id/state', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    await describeRun(agio.temporal, tenant, id);
    return agio.getHandle(id).state();
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
