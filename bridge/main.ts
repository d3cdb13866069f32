// Bridge entry point: `node dist/bridge/main.js` against TEMPORAL_ADDRESS, listening on HOST:PORT.
import { Client } from '@temporalio/client';
import { AgioClient } from '../client/agio-client';
import {
  connectClient,
  dataConverterOption,
  ensureSearchAttributes,
  liveLaneFromEnv,
  loadEnv,
  payloadCodecFromEnv,
  storesFromEnv,
  temporalTarget,
} from '../config';
import { AgentsFileError } from '../worker/agents-file';
import { agentsToServe } from '../worker/example-agents';
import { allowedHostsFor } from './host-check';
import { startTokens, TokensRequiredError } from './start-tokens';
import { tracingFromEnv } from '../telemetry/tracing-setup';
import { createBridge } from './server';

async function main(): Promise<void> {
  const env = loadEnv();
  // Nothing this process writes is for other users.
  process.umask(0o077);
  const host = process.env.HOST ?? '127.0.0.1';
  // No fixed token: AGIO_TOKENS, or (listening on loopback only) one generated now and shown once; bound anywhere else
  // without AGIO_TOKENS, the bridge does not start.
  const { tokens, generated } = startTokens(process.env.AGIO_TOKENS, host);
  const allowedHosts = allowedHostsFor(host, process.env.AGIO_ALLOWED_HOSTS);
  // The same file as the workers' (AGIO_AGENTS): the bridge starts these agents by name and lists them at GET /agents.
  const { agents, file: agentsSource } = agentsToServe(env.AGIO_AGENTS);
  const temporal = temporalTarget(env);
  const payloadCodec = payloadCodecFromEnv(env);
  const connection = await connectClient(temporal);
  const client = new Client({ connection, namespace: temporal.namespace, ...dataConverterOption(payloadCodec) });
  await ensureSearchAttributes(connection, temporal.namespace, 'agio bridge');
  const { stores, close: closeStores } = await storesFromEnv(env);
  const { lane: liveLane, close: closeLane } = await liveLaneFromEnv(env);
  // OTEL_* (an OTLP endpoint, say): POST /runs is a span, and the runs it starts hang under it.
  const tracing = tracingFromEnv('agio-bridge');
  const app = createBridge({
    stores,
    ...(liveLane ? { liveLane } : {}),
    agio: new AgioClient(client, { taskQueue: env.AGIO_TASK_QUEUE, agents }),
    tokens,
    allowedHosts,
    agentsSource,
    ...(env.AGIO_CORS_ORIGINS ? { corsOrigins: env.AGIO_CORS_ORIGINS } : {}),
    ...(env.AGIO_STREAM_TOKEN_SECRET ? { streamTokenSecret: env.AGIO_STREAM_TOKEN_SECRET } : {}),
    ...(env.AGIO_CALLBACK_SECRET ? { callbackSecret: env.AGIO_CALLBACK_SECRET } : {}),
    logger: true,
    // GET /metrics takes an admin token unless AGIO_METRICS_PUBLIC=1.
    metrics: { public: process.env.AGIO_METRICS_PUBLIC === '1', processMetrics: true },
    allowPermissionOverrides: env.AGIO_ALLOW_PERMISSION_OVERRIDES === 'true',
    allowLimitRaise: env.AGIO_ALLOW_LIMIT_RAISE === 'true',
    maxRunningRunsPerTenant: env.AGIO_MAX_RUNNING_RUNS_PER_TENANT,
    maxStreamsPerTenant: env.AGIO_MAX_STREAMS_PER_TENANT,
  });
  const url = await app.listen({ host, port: Number(process.env.PORT ?? 8080) });
  console.log(`agio bridge: ${url} (Temporal ${temporal.address}), answering Host ${allowedHosts.join(', ')}`);
  if (generated)
    console.log(`agio bridge: AGIO_TOKENS is not set; this start's token (tenant "default"): ${generated}`);
  const stop = async () => {
    await app.close();
    await connection.close();
    await closeLane();
    await closeStores();
    await tracing?.shutdown();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err) => {
  // A bad agents file says everything in its message (file, line, path, problem); a stack would only bury it.
  console.error(err instanceof AgentsFileError || err instanceof TokensRequiredError ? err.message : err);
  process.exit(1);
});
