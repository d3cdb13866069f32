// The HTTP bridge: a Fastify app over an AgioClient's Temporal client. Routes are validated with zod and
// answer errors as JSON; every run route is scoped to the caller's tenant.
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgentRegistry } from '../common';
import { tenantOf } from './auth';
import { HttpError, errorHandler } from './errors';
import { runStatus, startRun } from './runs';

/** What the bridge needs. */
export interface BridgeOptions {
  client: Client;
  agents: AgentRegistry;
  taskQueue: string;
  /** token → tenant. */
  tokens: Map<string, string>;
  logger?: boolean;
}

const StartRunBody = z.object({
  agent: z.string().min(1),
  input: z.string().min(1).max(1_000_000),
  sessionId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/).optional(),
});
const RunParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:/-]{1,256}$/, 'malformed run id') });

/** Builds the Fastify app (not yet listening). */
export function createBridge(opts: BridgeOptions): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: 2 * 1024 * 1024 });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'not_found', message: `no route ${req.method} ${req.url}` } });
  });

  app.get('/healthz', async () => {
    await opts.client.connection.workflowService.getSystemInfo({});
    return { ok: true };
  });

  app.get('/agents', async (req) => {
    tenantOf(req, opts.tokens);
    return { agents: opts.agents.list().map((a) => ({ name: a.name, description: a.description, tools: a.tools })) };
  });

  app.post('/runs', async (req, reply) => {
    const tenant = tenantOf(req, opts.tokens);
    const body = StartRunBody.parse(req.body ?? {});
    const agent = opts.agents.find(body.agent);
    if (!agent) throw new HttpError(404, 'unknown_agent', `unknown agent "${body.agent}"; GET /agents lists them`);
    const runId = await startRun(opts.client, opts.taskQueue, tenant, agent, body.input, body.sessionId);
    return reply.status(201).send({ runId, links: { self: `/runs/${runId}`, events: `/runs/${runId}/events` } });
  });

  app.get('/runs/:id', async (req) => {
    const tenant = tenantOf(req, opts.tokens);
    const { id } = RunParams.parse(req.params);
    return runStatus(opts.client, tenant, id);
  });

  return app;
}
