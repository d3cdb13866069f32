// A benchmark service in its own OS process: `node --import tsx bench/child.ts` with its JSON config in
// BENCH_CHILD_CONFIG. Role `worker`: an Agio worker (prebuilt bundle, the bench tool) on the bench task queue.
// Role `bridge`: the HTTP bridge on a free port. Role `serve`: both in one process, sharing an in-process live lane
// (as `agio serve` runs them). A worker or bridge given `natsUrl` carries deltas on NATS. Prints `READY <json>` once
// serving; SIGTERM stops it gracefully.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { parseTokens } from '../bridge/auth';
import { createBridge } from '../bridge/server';
import { AgioClient } from '../client/agio-client';
import { InProcessLane } from '../live/in-process-lane';
import { liveLaneFromEnv } from '../config/live-lane';
import type { LiveLane } from '../live/lane';
import { tracingObserverFromEnv } from '../telemetry/tracing-observer';
import { createWorker } from '../worker/create-worker';
import type { ChildConfig } from './setup';
import { benchTools } from './tools';

// Only a type import from setup.ts: the bridge process must not load the worker's modules (B6 measures its memory).
const CHILD_CONFIG_ENV = 'BENCH_CHILD_CONFIG';

async function runWorker(
  config: ChildConfig,
  liveLane?: LiveLane,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const traced = tracingObserverFromEnv('agio-bench-worker');
  const connection = await NativeConnection.connect({ address: config.address });
  const { worker } = await createWorker({
    liveLane,
    connection,
    taskQueue: config.taskQueue,
    model: { baseURL: config.modelBaseURL, apiKey: 'bench', defaultModel: 'scripted-model' },
    tools: benchTools,
    // For the bare `benchFloor` workflow (bench/workflows.ts): Temporal's round trip without Agio.
    extraActivities: { benchNoop: async (i: number) => i },
    workspaceRoot: config.workspaceRoot,
    workflowBundle: { codePath: config.workflowBundle! },
    workerOptions: { shutdownGraceTime: '2s' },
    // Traces as `agio worker` exports them when OTEL_* asks (tracing off and on is measured by running the bench
    // twice).
    observers: traced ? [traced.observer] : [],
  });
  return { worker, connection };
}

/** Runs a worker until SIGTERM/SIGINT. */
async function serveWorker(config: ChildConfig): Promise<void> {
  const { lane, close: closeLane } = await liveLaneFromEnv({ AGIO_NATS_URL: config.natsUrl });
  const { worker, connection } = await runWorker(config, lane);
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const running = worker.run();
  console.log(`READY ${JSON.stringify({ pid: process.pid })}`);
  await running;
  await connection.close();
  await closeLane();
}

async function startBridge(config: ChildConfig, liveLane?: LiveLane): Promise<{ url: string; close(): Promise<void> }> {
  const connection = await Connection.connect({ address: config.address });
  const agio = new AgioClient(new Client({ connection }), { taskQueue: config.taskQueue });
  const app = createBridge({
    agio,
    tokens: parseTokens(config.tokens ?? 'bench-token:default'),
    ...(liveLane ? { liveLane } : {}),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close().then(() => connection.close()) };
}

/** Runs a bridge until SIGTERM/SIGINT. */
async function serveBridge(config: ChildConfig): Promise<void> {
  const { lane } = await liveLaneFromEnv({ AGIO_NATS_URL: config.natsUrl });
  const bridge = await startBridge(config, lane);
  const stop = () => void bridge.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`READY ${JSON.stringify({ pid: process.pid, url: bridge.url })}`);
}

/** A worker and a bridge sharing an in-process live lane (what `agio serve` runs). */
async function serveBoth(config: ChildConfig): Promise<void> {
  const lane = new InProcessLane();
  const { worker, connection } = await runWorker(config, lane);
  const bridge = await startBridge(config, lane);
  const stop = () => {
    void bridge.close().then(() => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const running = worker.run();
  console.log(`READY ${JSON.stringify({ pid: process.pid, url: bridge.url })}`);
  await running;
  await connection.close();
}

async function main(): Promise<void> {
  const raw = process.env[CHILD_CONFIG_ENV];
  if (!raw) throw new Error(`${CHILD_CONFIG_ENV} is not set`);
  const config = JSON.parse(raw) as ChildConfig;
  if (config.role === 'worker') await serveWorker(config);
  else if (config.role === 'serve') await serveBoth(config);
  else await serveBridge(config);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
