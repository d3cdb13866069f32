// Worker entry point: `node dist/worker/main.js` (or `npm run worker`) against TEMPORAL_ADDRESS.
import { Client } from '@temporalio/client';
import {
  callbackOptionsFromEnv,
  connectClient,
  connectWorker,
  dataConverterOption,
  liveLaneFromEnv,
  loadEnv,
  modelConfigFromEnv,
  payloadCodecFromEnv,
  storesFromEnv,
  temporalTarget,
  workspaceOptionsFromEnv,
  workflowBundleFromEnv,
} from '../config';
import { AgentsFileError } from './agents-file';
import { agentsWithToolsToServe } from './example-agents';
import { ToolModuleError } from './tool-modules';
import { createWorker } from './create-worker';
import { applyFileSchedules, describeApplied } from './file-schedules';
import { metricsListenFromEnv, startMetricsServer, workerMetrics } from '../telemetry/metrics-worker';
import { installRuntimeWithMetrics } from '../telemetry/metrics-temporal';
import { tracingObserverFromEnv } from '../telemetry/tracing-observer';

/** AGIO_MAKE_CURRENT as createWorker's option. */
const MAKE_CURRENT = { first: 'first', true: true, false: false, force: 'force' } as const;
const MAKE_CURRENT_NOTE = {
  first: ' (made current only if the deployment has no current version)',
  true: ' (made current unless older than the current version)',
  false: ' (promote it with `agio versions promote`)',
  force: ' (made current)',
};

async function main(): Promise<void> {
  const env = loadEnv();
  // Workspaces and every file a tool writes are this user's alone (0700 directories, 0600 files).
  process.umask(0o077);
  // The file is checked before anything connects: a mistake in it (a tool no worker has too) is reported with its line,
  // and nothing starts. Tools of one's own: the file's `tools:` modules, and AGIO_TOOLS (comma-separated modules).
  const toolFiles = (process.env.AGIO_TOOLS ?? '').split(',').filter(Boolean);
  const loaded = await agentsWithToolsToServe(env.AGIO_AGENTS, toolFiles);
  const payloadCodec = payloadCodecFromEnv(env);
  // AGIO_WORKFLOW_BUNDLE: a prebuilt workflow bundle instead of webpack at start (checked now, before anything starts).
  const workflowBundle = workflowBundleFromEnv(env);
  const callbacks = callbackOptionsFromEnv(env);
  const temporal = temporalTarget(env);
  // AGIO_METRICS_PORT: GET /metrics on a listener of the worker's own, the Temporal SDK's metrics included (its runtime
  // is installed before anything connects).
  const listen = metricsListenFromEnv();
  const metrics = listen && workerMetrics();
  if (metrics) await installRuntimeWithMetrics((process.env.AGIO_LOG_LEVEL as 'INFO' | undefined) ?? 'INFO');
  // OTEL_EXPORTER_OTLP_ENDPOINT (or another OTEL_* setting that names an exporter): OpenTelemetry traces of every run.
  const traced = tracingObserverFromEnv('agio-worker');
  const connection = await connectWorker(temporal);
  const { stores, close: closeStores } = await storesFromEnv(env);
  const { lane: liveLane, close: closeLane } = await liveLaneFromEnv(env);
  const {
    worker,
    taskQueue,
    version,
    close: closeMcp,
  } = await createWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: env.AGIO_TASK_QUEUE,
    agents: loaded.agents,
    tools: loaded.tools,
    mcpServers: loaded.mcpServers,
    model: modelConfigFromEnv(env),
    workspaceRoot: `${env.AGIO_DATA_DIR}/workspaces`,
    // Workspaces in the stores: any worker runs a run's next tool, and a deploy loses none of its files.
    ...workspaceOptionsFromEnv(env, 'store'),
    stores,
    shutdownGraceTime: env.AGIO_SHUTDOWN_GRACE_TIME,
    ...workflowBundle,
    ...(payloadCodec ? { payloadCodec } : {}),
    ...(liveLane ? { liveLane } : {}),
    // AGIO_CALLBACK_SECRET and AGIO_CALLBACK_BASE_URL: callback tools' signed URLs, checked by the bridges.
    ...(callbacks ? { callbacks } : {}),
    observers: [...(metrics ? [metrics.observer] : []), ...(traced ? [traced.observer] : [])],
    versioning: {
      deploymentName: env.AGIO_DEPLOYMENT_NAME,
      buildId: env.AGIO_BUILD_ID,
      makeCurrent: MAKE_CURRENT[env.AGIO_MAKE_CURRENT],
    },
  });
  console.log(`agio worker: agents ${loaded.agents.map((a) => a.name).join(', ')} from ${loaded.file}`);
  if (loaded.schedules.length) {
    // Every worker of the fleet applies the file's schedules as it starts: create or update, so they all may at once.
    const clientConnection = await connectClient(temporal);
    const client = new Client({
      connection: clientConnection,
      namespace: temporal.namespace,
      ...dataConverterOption(payloadCodec),
    });
    await applyFileSchedules(client, taskQueue, loaded.schedules).then(
      (applied) => console.log(`agio worker: schedules ${describeApplied(applied)}`),
      (err: Error) => console.error(`agio worker: the agents file's schedules could not be applied: ${err.message}`),
    );
    await clientConnection.close();
  }
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  if (metrics && listen) {
    metrics.useVisibility({
      connection,
      namespace: temporal.namespace,
      taskQueue: env.AGIO_TASK_QUEUE,
      agents: () => loaded.agents.map((a) => a.name),
    });
    metricsServer = await startMetricsServer(metrics.text, listen.port, listen.host);
    console.log(`agio worker: metrics at ${metricsServer.url}`);
  }
  console.log(
    `agio worker: polling task queue "${taskQueue}" on ${temporal.address} as version ${version?.deploymentName}.${version?.buildId}${MAKE_CURRENT_NOTE[env.AGIO_MAKE_CURRENT]}${liveLane ? `, deltas on NATS ${env.AGIO_NATS_URL}` : ''}${payloadCodec ? `, payloads encrypted with key ${payloadCodec.currentKeyId}` : ''}`,
  );
  await worker.run();
  await traced?.tracing.shutdown();
  await metricsServer?.close();
  await closeMcp();
  await connection.close();
  await closeLane();
  await closeStores();
}

main().catch((err) => {
  // A bad agents file says everything in its message (file, line, path, problem); a stack would only bury it.
  console.error(err instanceof AgentsFileError || err instanceof ToolModuleError ? err.message : err);
  process.exit(1);
});
