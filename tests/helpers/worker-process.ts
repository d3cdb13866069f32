// An Agio worker in a separate OS process (tests/fixtures/worker-main.ts run by tsx), for tests that SIGKILL
// a worker mid-activity or check what a worker's own environment leaks to tools.
import type { Duration } from '@temporalio/common';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorker } from './temporal';
import { testEnv } from './test-env';

/** What the worker process reads from AGIO_TEST_WORKER_CONFIG. */
export interface WorkerProcessConfig {
  /** Temporal frontend, host:port. */
  address: string;
  taskQueue: string;
  model: { baseURL: string; apiKey: string; defaultModel: string };
  workspaceRoot: string;
  /** Path of the prebuilt workflow bundle. */
  workflowBundle: string;
  /** Names of tools from tests/fixtures/test-tools.ts to register besides the built-in tools. */
  tools?: string[];
  /** Registers the `ledger` and `quick_ledger` tools (tests/fixtures/test-tools.ts) writing to this file. */
  ledgerFile?: string;
  /** The worker's shutdown grace time (default 1s, so tests that stop it are quick). */
  shutdownGraceTime?: Duration;
  /** How long the server waits for this worker's sticky queue before handing a workflow task to any worker. */
  stickyQueueScheduleToStartTimeoutMs?: number;
  /** MongoDB stores (as MONGODB_URI, through storesFromEnv; a database in the URI is used) instead of memory stores. */
  mongoUri?: string;
  /** NATS for the live lane (as AGIO_NATS_URL): the worker's deltas go there instead of into the root's Wire. */
  natsUrl?: string;
  /**
   * SIGKILLs the worker itself right after it has stored the step with this index (of any run), before the
   * persisting local activity returns: the step is in the stores, the workflow task never completes. The ids
   * of the steps just stored are written to `markerFile` first.
   */
  killAfterPersistingStep?: { stepIndex: number; markerFile: string };
  /**
   * Serves the worker's metrics at http://127.0.0.1:<port>/metrics as `agio worker` does with AGIO_METRICS_PORT (the
   * Temporal SDK's included), counting the runs of `agents` (and the fleet's waiting runs) from visibility.
   */
  metrics?: { port: number; agents: string[] };
}

/** Environment variable that carries the config. */
export const WORKER_CONFIG_ENV = 'AGIO_TEST_WORKER_CONFIG';

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running worker process. */
export interface WorkerProcess {
  pid: number;
  /** Sends a signal (SIGTERM shuts down gracefully, SIGKILL kills at once). */
  kill(signal: NodeJS.Signals): void;
  /** Settles when the process has exited. */
  exited: Promise<WorkerExit>;
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** A workspace made for this process by {@link startTestWorkerProcess}, removed by {@link stopWorkerProcess}. */
  ownWorkspace?: string;
}

const REPO_ROOT = path.resolve(__dirname, '../..');
const READY_TIMEOUT_MS = 30_000;

/**
 * Spawns `node --import tsx tests/fixtures/worker-main.ts` with `config` (and extra environment variables)
 * and resolves once it prints READY, i.e. polls its task queue.
 */
export function startWorkerProcess(
  config: WorkerProcessConfig,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('tests', 'fixtures', 'worker-main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, [WORKER_CONFIG_ENV]: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<WorkerExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise<WorkerProcess>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      reject(new Error(`worker process ${why}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no READY within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    void exited.then(({ code, signal }) => fail(`exited (code ${code}, signal ${signal}) before it was ready`));
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      if (!/^READY$/m.test(stdout)) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        kill: (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        },
        exited,
        stderr: () => stderr,
      });
    });
  });
}

/**
 * Starts a worker process against the test dev server with the test bundle, a fresh workspace, and a short sticky
 * queue timeout (1 s), so that after a kill the run's next workflow task reaches the replacement worker quickly.
 */
export async function startTestWorkerProcess(
  config: Pick<WorkerProcessConfig, 'taskQueue' | 'model'> & Partial<WorkerProcessConfig>,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const ownWorkspace = config.workspaceRoot ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'agio-ws-proc-'));
  const worker = await startWorkerProcess(
    {
      address: testEnv('temporalAddress'),
      workflowBundle: testEnv('workflowBundle'),
      workspaceRoot: ownWorkspace ?? config.workspaceRoot!,
      stickyQueueScheduleToStartTimeoutMs: 1000,
      ...config,
    },
    env,
  );
  return { ...worker, ownWorkspace };
}

/** Stops a worker process gracefully, killing it if it has not exited after `graceMs`. */
export async function stopWorkerProcess(worker: WorkerProcess | undefined, graceMs = 5000): Promise<void> {
  if (!worker) return;
  worker.kill('SIGTERM');
  const timer = setTimeout(() => worker.kill('SIGKILL'), graceMs);
  await worker.exited;
  clearTimeout(timer);
  if (worker.ownWorkspace) await fs.rm(worker.ownWorkspace, { recursive: true, force: true });
}

/** SIGKILLs a worker process and waits until it is gone, checking that the signal, not the process, ended it. */
export async function killWorkerProcess(worker: WorkerProcess): Promise<void> {
  worker.kill('SIGKILL');
  expect(await worker.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

/** The two workers of a failover test: `first`, a worker process to SIGKILL, and `second`, its replacement. */
export interface FailoverWorkers {
  first?: WorkerProcess;
  second?: TestWorker;
}

/** Failover workers that `register` (afterAll by default, or afterEach) stops and forgets. */
export function failoverWorkers(register: (teardown: () => Promise<void>) => void = afterAll): FailoverWorkers {
  const workers: FailoverWorkers = {};
  register(async () => {
    await stopWorkerProcess(workers.first);
    await workers.second?.stop();
    workers.first = workers.second = undefined;
  });
  return workers;
}
