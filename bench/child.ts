// A benchmark service in its own OS process: `node --import tsx bench/child.ts` with its JSON config in
// BENCH_CHILD_CONFIG. Role `worker`: an Agio worker (prebuilt bundle, the bench tool) on the bench task queue.
// Role `bridge`: the HTTP bridge on a free port. Prints `READY <json>` once serving; SIGTERM stops it gracefully.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { parseTokens } from '../bridge/auth';
import { createBridge } from '../bridge/server';
import { AgioClient } from '../client/agio-client';
import { createWorker } from '../worker/create-worker';
import type { ChildConfig } from './setup';
import { benchTools } from './tools';

// Only a type import from setup.ts: the bridge process must not load the worker's modules (B6 measures its memory).
const CHILD_CONFIG_ENV = 'BENCH_CHILD_CONFIG';

async function runWorker(config: ChildConfig): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: config.address });
  const { worker } = await createWorker({
    connection,
    taskQueue: config.taskQueue,
    model: { baseURL: config.modelBaseURL, apiKey: 'bench', defaultModel: 'scripted-model' },
    tools: benchTools,
    // For the bare `benchFloor` workflow (bench/workflows.ts): Temporal's round trip without Agio.
    extraActivities: { benchNoop: async (i: number) => i },
    workspaceRoot: config.workspaceRoot,
    workflowBundle: { codePath: config.workflowBundle! },
    workerOptions: { shutdownGraceTime: '2s' },
  });
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const running = worker.run();
  console.log(`READY ${JSON.stringify({ pid: process.pid })}`);
  await running;
  await connection.close();
}

async function runBridge(config: ChildConfig): Promise<void> {
  const connection = await Connection.connect({ address: config.address });
  const agio = new AgioClient(new Client({ connection }), { taskQueue: config.taskQueue });
  const app = createBridge({ agio, tokens: parseTokens(config.tokens ?? 'bench-token:default') });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const stop = () => {
    void app.close().then(() => connection.close()).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`READY ${JSON.stringify({ pid: process.pid, url })}`);
}

async function main(): Promise<void> {
  const raw = process.env[CHILD_CONFIG_ENV];
  if (!raw) throw new Error(`${CHILD_CONFIG_ENV} is not set`);
  const config = JSON.parse(raw) as ChildConfig;
  if (config.role === 'worker') await runWorker(config);
  else await runBridge(config);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
