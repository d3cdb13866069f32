// MCP over Streamable HTTP: POST /mcp serves Agio's agents as MCP tools with Tasks (protocols/mcp), statelessly: each
// request gets a fresh server for its caller (bearer token → tenant and scopes, as every route), so any bridge answers
// any request, and a task (a run) lives in Temporal, not here. GET and DELETE (session streams, session ends) answer
// 405: there are no sessions. The SDK is loaded on the first request (an optional peer dependency).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z, ZodError } from 'zod';
import { optionalPackage } from '../../common/optional-package';
import { apiRoute, defineRoute, type ApiRoute } from '../api-route';
import { hasScope, type Grant } from '../auth';
import { errorHandler } from '../errors';
import { DEFAULT_MAX_RUNNING_RUNS_PER_TENANT, RunningRunsQuota } from '../quotas';
import type { McpCaller } from '../../protocols/mcp/run-tasks';
import { agioVersion } from './openapi';
import type { Routes } from './context';

/** Largest MCP request body (a tool call's prompt is at most 256 KiB). */
const MCP_BODY_LIMIT = 1024 * 1024;

/** A JSON-RPC message or batch: the MCP SDK validates it. */
const McpMessage = z
  .union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))])
  .describe('a JSON-RPC request, notification or response of MCP 2025-11-25 (or a batch)');

/** A JSON-RPC error answered without a request id, as the MCP SDK's transport answers a body it cannot read. */
const JsonRpcError = z.object({
  jsonrpc: z.literal('2.0'),
  error: z.object({ code: z.number().int(), message: z.string() }),
  id: z.null(),
});

/**
 * Errors before the MCP transport sees the body, answered as the transport answers them (JSON-RPC 2.0, HTTP 400,
 * -32700): a body that is not JSON, or JSON that is not a message. Others (401, 413…) as every route.
 */
function mcpErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const message =
    err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
      ? 'Parse error: Invalid JSON'
      : err instanceof ZodError
        ? 'Parse error: Invalid JSON-RPC message'
        : undefined;
  if (!message) return errorHandler(err, req, reply);
  void reply.status(400).send({ jsonrpc: '2.0', error: { code: -32700, message }, id: null });
}

/** POST /mcp. */
export const PostMcp = defineRoute({
  method: 'POST',
  path: '/mcp',
  summary: "MCP (Streamable HTTP, stateless): the tenant's agents as tools, runs as tasks",
  description:
    'tools/list, tools/call (with `task`: answers a task whose id is the run id; without: waits for the run, with ' +
    'progress), tasks/get, tasks/result, tasks/list, tasks/cancel. Scopes: read to list and follow, start to call, ' +
    "control to cancel. Another tenant's task is not found. Send Accept: application/json, text/event-stream.",
  tags: ['mcp'],
  auth: 'token',
  body: McpMessage,
  headers: {
    'mcp-protocol-version': { description: 'The protocol version from the handshake (e.g. 2025-11-25)' },
  },
  responses: {
    200: {
      description: 'The JSON-RPC answer, as JSON or as an SSE stream carrying progress first',
      contentType: 'text/event-stream',
    },
    202: { description: 'A notification or response, accepted' },
    400: {
      description: 'A JSON-RPC parse error (-32700): the body is not JSON, or not a JSON-RPC message',
      schema: JsonRpcError,
    },
    406: 'the Accept header does not take JSON and SSE',
  },
  options: { bodyLimit: MCP_BODY_LIMIT, errorHandler: mcpErrorHandler },
});

const noSessions: Omit<ApiRoute<undefined, undefined, undefined>, 'method'> = {
  path: '/mcp',
  summary: 'Not served: MCP here is stateless (no session stream, no session to end)',
  tags: ['mcp'],
  auth: 'public',
  responses: { 405: 'method_not_allowed' },
};
/** GET /mcp. */
export const GetMcp = defineRoute({ method: 'GET', ...noSessions });
/** DELETE /mcp. */
export const DeleteMcp = defineRoute({ method: 'DELETE', ...noSessions });

/** The MCP caller of a bridge token: its tenant, and its scopes as MCP actions. */
export function mcpCallerOf(grant: Grant): McpCaller {
  return { tenant: grant.tenant, may: (action) => hasScope(grant, action) };
}

export const mcpRoutes: Routes = (app, ctx) => {
  const running = new RunningRunsQuota(
    (tenant) => ctx.agio.count({ tenant, status: 'running' }).catch(() => 0),
    ctx.opts.maxRunningRunsPerTenant ?? DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  );

  apiRoute(app, ctx.tokens, PostMcp, async ({ req, reply, caller }) => {
    const { StreamableHTTPServerTransport } = optionalPackage<
      typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')
    >('@modelcontextprotocol/sdk/server/streamableHttp.js', 'The MCP endpoint (POST /mcp)');
    const { createAgioMcpServer } = await import('../../protocols/mcp/server');
    const server = createAgioMcpServer({
      agio: ctx.agio,
      caller: mcpCallerOf(caller),
      version: agioVersion(),
      admitStart: () => running.admit(caller.tenant),
    });
    // Stateless: no session id; the answer is an SSE stream (progress, then the result) or one JSON body.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // Headers hooks set before the take-over (CORS) go out with the transport's own.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    let forget: () => void = () => undefined;
    const close = () => {
      forget();
      void transport.close();
      void server.close();
    };
    // A call waiting for a long run holds its response open: a closing bridge ends it (the run goes on).
    forget = ctx.openStreams.add(() => {
      close();
      reply.raw.end();
    });
    reply.raw.on('close', close);
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err }, 'MCP request failed');
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'internal', message: 'the MCP request failed' } }));
      else reply.raw.end();
    }
  });

  const refuse: Parameters<typeof apiRoute>[3] = async ({ reply }) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send({ error: { code: 'method_not_allowed', message: 'MCP here is stateless: POST each message to /mcp' } });
  apiRoute(app, ctx.tokens, GetMcp, refuse);
  apiRoute(app, ctx.tokens, DeleteMcp, refuse);
};
