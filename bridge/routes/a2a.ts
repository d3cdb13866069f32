// A2A v1.0 (docs/ARCHITECTURE.md, "A2A"): each agent the bridge holds has an agent card at
// /a2a/agents/:name/.well-known/agent-card.json and answers A2A's JSON-RPC at /a2a/agents/:name (SendMessage,
// SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask, the push notification configs). Tasks are the
// caller's tenant's runs of that agent (protocols/a2a/); the SDK's JSON-RPC transport parses and answers, this file
// checks the token and its scope per method, then writes the answer as JSON or as SSE.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AgentCard, SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, validateVersion } from '@a2a-js/sdk/server';
import type { AnyAgentSpec } from '../../common';
import { agentCardFor } from '../../protocols/a2a/agent-card';
import { callContextFor, type A2ACaller } from '../../protocols/a2a/caller';
import { WebhookPushConfigs } from '../../protocols/a2a/push-configs';
import { AgioRequestHandler } from '../../protocols/a2a/request-handler';
import { RunTasks, type RunEvent } from '../../protocols/a2a/run-tasks';
import { apiRoute, defineRoute } from '../api-route';
import { forbidden, hasScope, type Grant, type Scope } from '../auth';
import { HttpError } from '../errors';
import { DEFAULT_MAX_RUNNING_RUNS_PER_TENANT, RunningRunsQuota } from '../quotas';
import { checkedWebhookUrl } from '../run-webhooks';
import type { BridgeContext, Routes } from './context';

/** An agent's name in a path. */
const AgentParams = z.object({ name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'malformed agent name') });

/** A JSON-RPC request as the bridge takes it (the SDK checks the rest: params by method). */
const JsonRpcBody = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string().min(1).max(64),
    id: z.union([z.string().max(256), z.number(), z.null()]).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

/** The scope each method takes (SendMessage on a task waiting for approval also takes `decide`). */
const METHOD_SCOPES: Record<string, Scope> = {
  SendMessage: 'start',
  SendStreamingMessage: 'start',
  GetTask: 'read',
  ListTasks: 'read',
  SubscribeToTask: 'read',
  CancelTask: 'control',
  CreateTaskPushNotificationConfig: 'start',
  GetTaskPushNotificationConfig: 'read',
  ListTaskPushNotificationConfigs: 'read',
  DeleteTaskPushNotificationConfig: 'start',
  GetExtendedAgentCard: 'read',
};

/** Largest JSON-RPC request body. */
const A2A_BODY_LIMIT = 1024 * 1024;

/** GET /a2a/agents/:name/.well-known/agent-card.json. */
export const GetAgentCard = defineRoute({
  method: 'GET',
  path: '/a2a/agents/:name/.well-known/agent-card.json',
  summary: "An agent's A2A agent card (its name, skill, capabilities, JSON-RPC URL and bearer auth)",
  tags: ['a2a'],
  auth: 'read',
  params: AgentParams,
  responses: { 200: z.record(z.string(), z.unknown()), 404: 'agent_not_found: the bridge holds no agent by that name' },
});

/** POST /a2a/agents/:name. */
export const PostA2A = defineRoute({
  method: 'POST',
  path: '/a2a/agents/:name',
  summary: "A2A v1.0 JSON-RPC: tasks are the tenant's runs of the agent",
  description:
    'Methods and the scope each takes: SendMessage and SendStreamingMessage (start; answering an approval also takes ' +
    'decide), GetTask, ListTasks and SubscribeToTask (read), CancelTask (control), push notification configs (start ' +
    'to create or delete, read to read). Send the A2A-Version: 1.0 header. Streams answer text/event-stream.',
  tags: ['a2a'],
  auth: 'token',
  params: AgentParams,
  body: JsonRpcBody,
  headers: { 'a2a-version': { description: 'The A2A protocol version: 1.0' } },
  responses: {
    200: {
      description: 'A JSON-RPC response (errors included), or an SSE stream of them',
      schema: z.record(z.string(), z.unknown()),
    },
    404: 'agent_not_found',
  },
  options: { bodyLimit: A2A_BODY_LIMIT },
});

/** The agent the bridge holds by that name; 404 otherwise. */
function agentOf(ctx: BridgeContext, name: string): AnyAgentSpec {
  const agent = ctx.agio.agents.find(name);
  if (!agent) throw new HttpError(404, 'agent_not_found', `this bridge holds no agent "${name}"`);
  return agent;
}

/** The card of an agent as this request reaches the bridge (its Host passed the bridge's Host check). */
function cardOf(ctx: BridgeContext, req: FastifyRequest, agent: AnyAgentSpec) {
  const url = `${req.protocol}://${req.host}/a2a/agents/${encodeURIComponent(agent.name)}`;
  return agentCardFor(agent, { url, pushNotifications: Boolean(ctx.opts.stores?.webhooks) });
}

/** A root run's events from its start through the bridge's shared reader (one upstream reader per run). */
function hubEvents(ctx: BridgeContext) {
  return (tenant: string, runId: string, signal: AbortSignal): AsyncIterable<RunEvent> => ({
    [Symbol.asyncIterator]: () => {
      const queue: RunEvent[] = [];
      let ended: { error?: Error } | undefined;
      let wake: (() => void) | undefined;
      const poke = () => wake?.();
      const stop = ctx.hub.subscribe(tenant, runId, -1, {
        onEvent: (event) => (queue.push(event), poke()),
        onEnd: (error) => ((ended = { error }), poke()),
      });
      signal.addEventListener('abort', poke, { once: true });
      return {
        async next(): Promise<IteratorResult<RunEvent>> {
          while (!queue.length && !ended && !signal.aborted) await new Promise<void>((r) => (wake = r));
          if (queue.length) return { value: queue.shift()!, done: false };
          stop();
          if (ended?.error && !signal.aborted) throw ended.error;
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<RunEvent>> {
          stop();
          return { value: undefined, done: true };
        },
      };
    },
  });
}

/**
 * Writes an SDK answer: JSON, or an SSE stream once its first event is in hand (an error before it answers as JSON).
 */
async function answer(
  ctx: BridgeContext,
  req: FastifyRequest,
  reply: FastifyReply,
  result: unknown,
  stop: AbortController,
) {
  if (!result || typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
    stop.abort();
    return reply.status(200).send(result);
  }
  const id = (req.body as { id?: unknown }).id ?? null;
  const errorOf = (err: unknown) => ({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
  const events = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await events.next();
  } catch (err) {
    stop.abort();
    return reply.status(200).send(errorOf(err));
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, SSE_HEADERS);
  const forget = ctx.openStreams.add(() => (stop.abort(), res.end()));
  try {
    if (!first.done) res.write(formatSSEEvent(first.value));
    for (let next = await events.next(); !next.done && !res.writableEnded; next = await events.next())
      res.write(formatSSEEvent(next.value));
  } catch (err) {
    if (!res.writableEnded && !stop.signal.aborted) res.write(formatSSEErrorEvent(errorOf(err)));
  } finally {
    forget();
    stop.abort();
    if (!res.writableEnded) res.end();
  }
}

export const a2aRoutes: Routes = (app, ctx) => {
  const running = new RunningRunsQuota(
    (tenant) => ctx.agio.count({ tenant, status: 'running' }).catch(() => 0),
    ctx.opts.maxRunningRunsPerTenant ?? DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  );
  const events = hubEvents(ctx);
  const pushConfigs = ctx.opts.stores?.webhooks
    ? new WebhookPushConfigs({
        webhooks: ctx.agio.webhooks(ctx.opts.stores.webhooks),
        checkUrl: (url) => checkedWebhookUrl(ctx, url),
      })
    : undefined;

  apiRoute(app, ctx.tokens, GetAgentCard, async ({ req, params }) =>
    AgentCard.toJSON(cardOf(ctx, req, agentOf(ctx, params.name))),
  );

  apiRoute(app, ctx.tokens, PostA2A, async ({ req, reply, caller, params, body }) => {
    const agent = agentOf(ctx, params.name);
    const scope = METHOD_SCOPES[body.method];
    if (scope && !hasScope(caller, scope)) throw forbidden(scope);
    const card = cardOf(ctx, req, agent);
    const version = req.headers['a2a-version'];
    const context = callContextFor(a2aCaller(caller), typeof version === 'string' ? version : undefined);
    const stop = new AbortController();
    reply.raw.once('close', () => stop.abort());
    const tasks = new RunTasks(ctx.agio, agent.name, events);
    const handler = new AgioRequestHandler({
      card,
      tasks,
      signal: stop.signal,
      ...(pushConfigs ? { pushConfigs } : {}),
      startRun: async (who, run) => {
        const release = await running.admit(who.tenant);
        try {
          await ctx.agio.start(agent.name, run.input, {
            runId: run.runId,
            tenant: who.tenant,
            sessionId: run.sessionId,
          });
        } catch (err) {
          release();
          throw err;
        }
      },
    });
    try {
      validateVersion(context.requestedVersion, card, 'JSONRPC');
    } catch (err) {
      return { jsonrpc: '2.0', id: body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(err) };
    }
    const result = await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context);
    return answer(ctx, req, reply, result, stop);
  });
};

/** The caller as the A2A server sees it. */
function a2aCaller(grant: Grant): A2ACaller {
  return {
    tenant: grant.tenant,
    identity: grant.identity,
    roles: [...(grant.roles ?? [])],
    scopes: [...grant.scopes].flatMap((s) => (s === 'admin' ? ['admin', 'start', 'read', 'decide', 'control'] : [s])),
  };
}
