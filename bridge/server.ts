// The HTTP bridge: a Fastify app over an AgioClient. Bodies and params are validated with zod, errors are JSON,
// every run route is scoped to the caller's tenant, and run events stream as SSE through one shared reader.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { optionalPackage } from '../common/optional-package';
import { errorHandler } from './errors';
import { LOOPBACK_HOSTS, registerHostCheck } from './host-check';
import { redactingLogger } from './log-redaction';
import type { BridgeOptions } from './options';
import type { BridgeContext } from './routes/context';
import { budgetRoutes } from './routes/budgets';
import { webhookRoutes } from './routes/webhooks';
import { controlRoutes } from './routes/control';
import { approvalRoutes } from './routes/approvals';
import { callbackRoutes } from './routes/callbacks';
import { messageRoutes } from './routes/messages';
import { healthRoutes } from './routes/health';
import { recordRoutes } from './routes/records';
import { codecRoutes } from './routes/codec';
import { runRoutes } from './routes/runs';
import { scheduleRoutes } from './routes/schedules';
import { streamRoutes } from './routes/streams';
import { whoamiRoutes } from './routes/whoami';
import { metricsRoutes } from './routes/metrics';
import { openApiRoutes } from './routes/openapi';
import { agUiRoutes } from './routes/ag-ui';
import { mcpRoutes } from './routes/mcp';
import { a2aRoutes } from './routes/a2a';
import { rescueRoutes } from './routes/rescue';
import { redriveRoutes } from './routes/redrive';
import { RouteCatalog } from './openapi';
import { bridgeMetrics } from '../telemetry/metrics-bridge';
import { OpenStreams } from './open-streams';
import { StreamHub } from './stream-hub';
import { StreamTokens } from './stream-tokens';
import { builtViewerDir, registerViewer } from './routes/viewer';

export type { BridgeOptions } from './options';

/** The bridge's optional peer dependencies, named together when one is missing. */
export const BRIDGE_PACKAGES = ['fastify', '@fastify/cors', '@fastify/static'];

/** Longest path segment the router passes to a route (longer ones answer 400). */
const MAX_PARAM_LENGTH = 2048;

/** Builds the Fastify app (not yet listening): options, CORS, hooks and errors here; the routes in routes/. */
export function createBridge(opts: BridgeOptions): FastifyInstance & { hub: StreamHub; routeCatalog: RouteCatalog } {
  const load = <T>(name: string) => optionalPackage<T>(name, 'The HTTP bridge', BRIDGE_PACKAGES);
  const { default: Fastify } = load<typeof import('fastify')>('fastify');
  const { default: cors } = load<typeof import('@fastify/cors')>('@fastify/cors');
  const app = Fastify({
    logger: opts.logger ? redactingLogger(opts.logger === true ? undefined : opts.logger) : false,
    bodyLimit: 2 * 1024 * 1024,
    // Ids up to their own limits (a run id: 512 characters, percent-encoded maybe thrice as long) reach the routes'
    // validation, which answers 400 in the bridge's JSON error shape; Fastify's default (100) cut long nested run ids
    // off.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // URLs the router itself rejects (bad percent-encoding, longer segments) answer in the same shape.
    frameworkErrors: (err, _req, reply) => {
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path segment is longer than ${MAX_PARAM_LENGTH} characters`
          : err.code === 'FST_ERR_BAD_URL'
            ? 'the URL has a malformed path segment'
            : err.message;
      void (reply as FastifyReply).status(400).send({ error: { code: 'invalid_request', message } });
    },
  });
  // Sees every route registered from here on: GET /openapi.json describes them (bridge/openapi.ts).
  const routeCatalog = new RouteCatalog(app);
  const { agio } = opts;
  const openStreams = new OpenStreams();
  // Served at GET /metrics (routes/metrics.ts), with the process's own metrics when asked (the bridge's main).
  const metrics = bridgeMetrics(
    { openStreams: () => openStreams.size, readers: () => hub.stats() },
    { processMetrics: opts.metrics?.processMetrics === true },
  );
  const hub = new StreamHub(agio, opts.stores?.events, opts.liveLane && metrics.measuredLane(opts.liveLane));
  const streamTokens = new StreamTokens(opts.streamTokenSecret, opts.streamTokenTtlMs);
  // First of all hooks: a request for a name the bridge does not answer to (DNS rebinding) or a state change from a
  // foreign page is refused before anything else sees it.
  registerHostCheck(app, opts.allowedHosts ?? LOOPBACK_HOSTS, opts.corsOrigins ?? []);
  if (opts.corsOrigins?.length) {
    const origins = opts.corsOrigins;
    void app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      // x-namespace: the Temporal Web UI's requests to the codec endpoint (routes/codec.ts).
      allowedHeaders: [
        'authorization',
        'content-type',
        'idempotency-key',
        'last-event-id',
        'x-namespace',
        'mcp-protocol-version',
        'a2a-version',
      ],
      exposedHeaders: ['idempotent-replayed'],
      maxAge: 600,
    });
  }
  // Before the server waits for its open requests (onClose runs after that wait): an SSE response on a live run never
  // ends by itself, so every stream is ended here, cleanly, and its readers stopped; clients reconnect elsewhere.
  app.addHook('preClose', async () => {
    openStreams.closeAll();
    hub.close();
  });
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

  const ctx: BridgeContext = { opts, agio, tokens: opts.tokens, hub, openStreams, streamTokens };
  metricsRoutes(app, ctx, metrics);
  openApiRoutes(app, ctx, routeCatalog);
  for (const routes of [
    healthRoutes,
    whoamiRoutes,
    runRoutes,
    streamRoutes,
    controlRoutes,
    approvalRoutes,
    callbackRoutes,
    messageRoutes,
    recordRoutes,
    codecRoutes,
    budgetRoutes,
    webhookRoutes,
    scheduleRoutes,
    rescueRoutes,
    redriveRoutes,
    agUiRoutes,
    mcpRoutes,
    a2aRoutes,
  ])
    routes(app, ctx);

  return Object.assign(app, { hub, routeCatalog });
}
