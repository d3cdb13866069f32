// `agio serve`: the embedded default — a Temporal dev server (SQLite under the data directory), a worker
// and the HTTP bridge in one process; Ctrl-C shuts all of it down.
import { Client } from '@temporalio/client';
import fs from 'node:fs';
import path from 'node:path';
import { AgioClient } from '../client/agio-client';
import { allowedHostsFor } from '../bridge/host-check';
import { startTokens, writeTokenFile } from '../bridge/start-tokens';
import { createBridge } from '../bridge/server';
import { InProcessLane } from '../live/in-process-lane';
import type { ModelConfig } from '../activities/model/call-model';
import {
  connectClient,
  connectWorker,
  dataConverterOption,
  serveCallbackSecret,
  ensureSearchAttributes,
  loadEnv,
  localTarget,
  modelConfigFromEnv,
  payloadCodecFromEnv,
  storesFromEnv,
  temporalTarget,
  workspaceOptionsFromEnv,
  workflowBundleFromEnv,
} from '../config';
import { lockDataDir } from '../devkit/data-dir-lock';
import { startDemoModel } from '../devkit/demo-model';
import { portOr } from '../devkit/free-port';
import { startTemporalDevServer } from '../devkit/temporal-server';
import { createWorker } from '../worker/create-worker';
import { agentsWithToolsToServe } from '../worker/example-agents';
import { applyFileSchedules, describeApplied } from '../worker/file-schedules';
import { startWebUiBeside } from './web-ui';
import { workerMetrics } from '../telemetry/metrics-worker';
import { installRuntimeWithMetrics } from '../telemetry/metrics-temporal';
import { tracingObserverFromEnv } from '../telemetry/tracing-observer';

/** Runs the embedded stack until SIGINT/SIGTERM. */
export async function serve(opts: { port?: number; agents?: string; tools?: string[] } = {}): Promise<void> {
  const env = loadEnv();
  // What serve creates (the data directory, workspaces, written files, the token file) is this user's alone.
  process.umask(0o077);
  const host = process.env.HOST ?? '127.0.0.1';
  // No fixed token: AGIO_TOKENS, or one generated now (serve on loopback only), shown once and kept in <data>/token.
  const { tokens, generated } = startTokens(process.env.AGIO_TOKENS, host);
  // Checked before anything starts: a mistake in the file (a tool no worker has too) is reported with its line, and
  // nothing is left running. The user's own tools (--tools, the file's `tools:`) are loaded now for the same reason.
  const loaded = await agentsWithToolsToServe(opts.agents ?? env.AGIO_AGENTS, opts.tools);
  const payloadCodec = payloadCodecFromEnv(env);
  // AGIO_WORKFLOW_BUNDLE: a prebuilt workflow bundle instead of webpack at start (checked now, before anything starts).
  const workflowBundle = workflowBundleFromEnv(env);
  // The bridge's GET /metrics serves the worker's metrics too, the Temporal SDK's included (exported by the runtime).
  await installRuntimeWithMetrics((process.env.AGIO_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN');
  const metrics = workerMetrics();
  // OTEL_* (an OTLP endpoint, say): traces of every run, and the bridge's POST /runs as their parent.
  const traced = tracingObserverFromEnv('agio');
  const dataDir = path.resolve(env.AGIO_DATA_DIR);
  await fs.promises.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await fs.promises.chmod(dataDir, 0o700);
  const lock = await lockDataDir(dataDir);
  const cleanups: (() => Promise<unknown>)[] = [() => lock.release()];
  if (traced) cleanups.push(() => traced.tracing.shutdown());
  const shutdown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => console.error(err));
  };
  try {
    // TEMPORAL_ADDRESS names a server of one's own, reached with the environment's TLS and API key, as the worker and
    // bridge reach it; unset, serve starts a dev server on loopback and connects to it plainly.
    let temporal = temporalTarget(env);
    if (!env.TEMPORAL_ADDRESS) {
      console.log('agio: starting the Temporal dev server…');
      const server = await startTemporalDevServer({
        dbFilename: path.join(dataDir, 'temporal.db'),
        port: await portOr(7233),
        log: console.log,
      });
      cleanups.push(() => server.stop());
      await lock.recordChild('Temporal dev server', server.pid, 'temporal-server');
      temporal = localTarget(server.address, env.TEMPORAL_NAMESPACE);
      // The Web UI comes up beside it, without holding up the rest (its first start builds it); AGIO_WEB_UI=false:
      // none.
      if (env.AGIO_WEB_UI === 'true') cleanups.push(startWebUiBeside(server.address, lock));
    }
    let model: ModelConfig;
    if (env.OPENAI_API_KEY) {
      model = modelConfigFromEnv(env);
    } else {
      const demo = await startDemoModel();
      cleanups.push(() => demo.close());
      model = { baseURL: demo.baseURL, apiKey: 'offline-demo', defaultModel: 'agio-offline-demo' };
      console.log('agio: OPENAI_API_KEY is not set — using the offline demo model (set it to use a real model)');
    }
    const workerConnection = await connectWorker(temporal);
    cleanups.push(() => workerConnection.close());
    const { stores, close: closeStores } = await storesFromEnv(env, { dataDir });
    const liveLane = new InProcessLane();
    cleanups.push(closeStores);
    // Callback tools' URLs point at this bridge (or AGIO_CALLBACK_BASE_URL), signed with a secret kept in the data dir.
    const callbackSecret = await serveCallbackSecret(env, dataDir);
    const listening: { url?: string } = {};
    const {
      worker,
      agents,
      taskQueue,
      close: closeMcp,
    } = await createWorker({
      connection: workerConnection,
      namespace: temporal.namespace,
      taskQueue: env.AGIO_TASK_QUEUE,
      agents: loaded.agents,
      tools: loaded.tools,
      mcpServers: loaded.mcpServers,
      model,
      workspaceRoot: path.join(dataDir, 'workspaces'),
      // One worker in this process: its directory is the workspace (unless AGIO_WORKSPACE_SYNC says otherwise).
      ...workspaceOptionsFromEnv(env, 'off'),
      stores,
      shutdownGraceTime: env.AGIO_SHUTDOWN_GRACE_TIME,
      ...workflowBundle,
      ...(payloadCodec ? { payloadCodec } : {}),
      // Worker and bridge share this process: model deltas go straight to the bridge, never through workflow history.
      liveLane,
      callbacks: { secret: callbackSecret, baseUrl: env.AGIO_CALLBACK_BASE_URL ?? (() => listening.url) },
      observers: [metrics.observer, ...(traced ? [traced.observer] : [])],
      // One process cannot keep the previous release's worker running for the runs pinned to it: runs follow the
      // current version instead (patched workflow changes keep them replaying; `agio replay-check` tells before).
      // The code serve runs is the code that should run, even an older checkout: it makes itself current regardless.
      versioning: { behavior: 'auto_upgrade', makeCurrent: 'force' },
    });
    metrics.useVisibility({
      connection: workerConnection,
      namespace: temporal.namespace,
      taskQueue,
      agents: () => agents.list().map((a) => a.name),
    });
    const running = worker.run();
    cleanups.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await closeMcp();
    });
    const clientConnection = await connectClient(temporal);
    cleanups.push(() => clientConnection.close());
    await ensureSearchAttributes(clientConnection, temporal.namespace, 'agio');
    const tokenPath = generated ? await writeTokenFile(dataDir, generated) : undefined;
    const client = new Client({
      connection: clientConnection,
      namespace: temporal.namespace,
      ...dataConverterOption(payloadCodec),
    });
    const agio = new AgioClient(client, {
      taskQueue,
      agents,
    });
    // The agents file's schedules, created or updated (worker/file-schedules.ts): their runs are this process's.
    if (loaded.schedules.length)
      console.log(`agio: schedules ${describeApplied(await applyFileSchedules(client, taskQueue, loaded.schedules))}`);
    const bridge = createBridge({
      agio,
      tokens,
      stores,
      liveLane,
      agentsSource: loaded.file,
      allowPermissionOverrides: env.AGIO_ALLOW_PERMISSION_OVERRIDES === 'true',
      allowLimitRaise: env.AGIO_ALLOW_LIMIT_RAISE === 'true',
      maxRunningRunsPerTenant: env.AGIO_MAX_RUNNING_RUNS_PER_TENANT,
      maxStreamsPerTenant: env.AGIO_MAX_STREAMS_PER_TENANT,
      corsOrigins: env.AGIO_CORS_ORIGINS,
      allowedHosts: allowedHostsFor(host, process.env.AGIO_ALLOWED_HOSTS),
      streamTokenSecret: env.AGIO_STREAM_TOKEN_SECRET,
      callbackSecret,
      metrics: { public: process.env.AGIO_METRICS_PUBLIC === '1', extra: metrics.text },
    });
    const url = await bridge.listen({
      host,
      port: opts.port ?? (await portOr(Number(process.env.PORT ?? 8080))),
    });
    listening.url = url;
    cleanups.push(() => bridge.close());
    // A generated token is shown here once (and kept in the token file); a configured one is never printed.
    const token = generated ?? '$TOKEN';
    console.log(
      [
        '',
        `agio is running`,
        `  bridge     ${url}   (Authorization: Bearer ${generated ?? '<a token of AGIO_TOKENS>'})`,
        `  viewer     ${url}/ui/${generated ? `#token=${encodeURIComponent(generated)}` : ''}`,
        ...(tokenPath ? [`  token      ${tokenPath} (new at every start; the agio commands read it)`] : []),
        `  temporal   ${temporal.address}`,
        ...(payloadCodec
          ? [
              `  codec      payloads encrypted with key "${payloadCodec.currentKeyId}"; ${url}/codec decodes (admin tokens)`,
            ]
          : []),
        `  worker     task queue "${taskQueue}", agents: ${agents
          .list()
          .map((a) => a.name)
          .join(', ')}`,
        `  agents     ${loaded.file}`,
        ...(loaded.tools.length ? [`  tools      ${loaded.tools.map((t) => t.name).join(', ')} (your own)`] : []),
        `  data       ${dataDir}`,
        '',
        `try: curl -s -X POST ${url}/runs -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' -d '{"agent":"${agents.list()[0].name}","input":"hello"}'`,
        'Ctrl-C stops everything.',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    console.log('\nagio: shutting down…');
  } finally {
    await shutdown();
  }
  console.log('agio: stopped');
}
