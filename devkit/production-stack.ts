// The production shape on one machine, each part its own process on loopback ports, as docker-compose.yml describes
// it: PostgreSQL, Temporal on it (schema by the server's SQL tool), FerretDB on the same PostgreSQL as the MongoDB
// store, NATS for the live lane, and Agio's built workers and bridges configured by environment variables only.
// Used by tests/production and `scripts/production-stack`; the kill helpers are for fault tests.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GENERATED_TOKEN_TENANT, generateToken } from '../bridge/start-tokens';
import { projectRoot } from '../platform/project-root';
import { buildAgio, startAgioProcess, type AgioExit, type AgioProcess } from './agio-process';
import { FERRETDB } from './ferretdb-server';
import { freePort } from './free-port';
import { findOrInstallBinary } from './install-binary';
import { startLoopbackServer } from './loopback-server';
import { startNatsServer } from './nats-server';
import { startPostgres, type PostgresServer } from './postgresql-server';
import { bridgeEnvironment, telemetryEnvironment, workerEnvironment, type ShapeEndpoints } from './production-env';
import { startTemporalOnPostgres, temporalBinaries, type TemporalOnPostgres } from './temporal-postgres';

const run = promisify(execFile);

/** Options of {@link startProductionStack}. */
export interface ProductionStackOptions {
  /** The model every worker calls (OPENAI_BASE_URL, OPENAI_API_KEY, AGIO_MODEL). */
  model: { baseURL: string; apiKey?: string; model?: string };
  /** The agents file (AGIO_AGENTS) of workers and bridges; default: the example agents. */
  agentsFile?: string;
  /** Number of worker and bridge processes (default 2 each). */
  workers?: number;
  bridges?: number;
  /** AGIO_TASK_QUEUE (default `agio`). */
  taskQueue?: string;
  /** AGIO_TOKENS of the bridges (default: one token generated at start, tenant `default`; the stack's env shows it). */
  tokens?: string;
  /** The payload codec's keys (AGIO_CODEC_KEYS) of every worker and bridge; default none. */
  codecKeys?: string;
  /** Extra dynamic config of the Temporal server, over docker-compose's. */
  temporalDynamicConfig?: Record<string, string | number | boolean>;
  /** Where the stack keeps its data (default: a new temporary directory, removed on stop). */
  dir?: string;
  log?: (msg: string) => void;
}

/** A running stack. */
export interface ProductionStack {
  dir: string;
  temporal: TemporalOnPostgres;
  postgres: PostgresServer;
  mongoUri: string;
  natsUrl: string;
  /** The compiled Agio (`dist/` with its prebuilt workflow bundle) every process runs. */
  dist: string;
  /** The running workers and bridges (one that exits leaves its list). */
  workers: AgioProcess[];
  bridges: AgioProcess[];
  /** Milliseconds each phase of the start took (build, servers, processes). */
  timings: Record<string, number>;
  /** Starts one more worker with a workspace root of its own; `env` is added to (or overrides) its environment. */
  startWorker(env?: Record<string, string>): Promise<AgioProcess>;
  /** Starts one more bridge on a free port. */
  startBridge(env?: Record<string, string>): Promise<AgioProcess>;
  /**
   * Runs the built `agio` CLI (`node dist/cli/main.js ...args`) with the stack's environment, e.g. `versions promote`.
   */
  cli(args: string[]): Promise<{ code: number; output: string }>;
  /** SIGKILLs a process (worker or bridge) and resolves once it is gone. */
  kill(proc: AgioProcess): Promise<AgioExit>;
  /** `pg_ctl restart -m fast` under everything that is connected to PostgreSQL. */
  restartPostgres(): Promise<void>;
  /** Stops every process, bridges and workers first, then the servers. */
  stop(): Promise<void>;
}

/** Builds what is missing (Go binaries, dist/), starts every part, and resolves once all serve. */
export async function startProductionStack(opts: ProductionStackOptions): Promise<ProductionStack> {
  const log = opts.log ?? ((msg: string) => console.error(msg));
  const timings: Record<string, number> = {};
  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const value = await fn();
    timings[what] = Date.now() - t0;
    return value;
  };
  const dir = opts.dir ?? (await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-production-')));
  // The build lives inside the project: node_modules and the example agents are found from there.
  await fs.promises.mkdir(path.join(projectRoot(), '.tools'), { recursive: true });
  const buildDir = await fs.promises.mkdtemp(path.join(projectRoot(), '.tools', 'production-build-'));
  const stoppers: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    stoppers.length = 0;
    await fs.promises.rm(buildDir, { recursive: true, force: true });
    if (!opts.dir) await fs.promises.rm(dir, { recursive: true, force: true });
  };
  try {
    const [dist, ferretdb] = await Promise.all([
      timed('build', () => buildAgio(buildDir)),
      timed('binaries', async () => {
        await temporalBinaries(log);
        const ferret = await findOrInstallBinary(FERRETDB, log);
        if (!ferret) throw new Error('FerretDB is not installed and no Go toolchain was found');
        return ferret;
      }),
    ]);
    const postgres = await timed('postgresql', () => startPostgres(path.join(dir, 'postgresql')));
    stoppers.push(() => postgres.stop());
    const [temporal, ferret, nats] = await timed('servers', () =>
      Promise.all([
        startTemporalOnPostgres({
          postgres,
          dir: path.join(dir, 'temporal'),
          dynamicConfig: opts.temporalDynamicConfig,
          log,
        }).then((t) => (stoppers.push(() => t.stop()), t)),
        postgres.createDatabase('ferretdb').then(() =>
          startLoopbackServer({
            name: 'FerretDB',
            binary: ferretdb,
            args: (stateDir, port) => [
              '--handler=postgresql',
              `--postgresql-url=${postgres.url('ferretdb')}`,
              `--listen-addr=127.0.0.1:${port}`,
              `--state-dir=${stateDir}`,
              '--debug-addr=-',
              '--telemetry=disable',
              '--log-level=error',
            ],
          }).then((f) => (stoppers.push(() => f.stop()), f)),
        ),
        startNatsServer().then((n) => (stoppers.push(() => n.stop()), n)),
      ]),
    );
    const mongoUri = `mongodb://127.0.0.1:${ferret.port}/agio`;
    const endpoints: ShapeEndpoints = {
      temporalAddress: temporal.address,
      namespace: temporal.namespace,
      taskQueue: opts.taskQueue ?? 'agio',
      mongoUri,
      natsUrl: nats.url,
      ...(opts.agentsFile ? { agentsFile: path.resolve(opts.agentsFile) } : {}),
      ...(opts.codecKeys ? { codecKeys: opts.codecKeys } : {}),
    };
    const streamTokenSecret = `stack-${process.pid}-${Date.now()}`;
    const workers: AgioProcess[] = [];
    const bridges: AgioProcess[] = [];
    // Names count starts, not running processes: two bridges started side by side get different names.
    const started = { worker: 0, bridge: 0 };
    /** Lists a process while it runs (a killed one leaves the list) and stops it with the stack. */
    const track = (list: AgioProcess[], proc: AgioProcess) => {
      list.push(proc);
      stoppers.push(() => proc.stop());
      void proc.exited.then(() => list.includes(proc) && list.splice(list.indexOf(proc), 1));
    };
    const startWorker = async (env: Record<string, string> = {}) => {
      const name = `worker-${++started.worker}`;
      const dataDir = path.join(dir, name);
      await fs.promises.mkdir(dataDir, { recursive: true });
      const worker = await startAgioProcess({
        kind: 'worker',
        name,
        dist,
        cwd: dataDir,
        env: {
          ...workerEnvironment(endpoints, { dataDir, model: opts.model }),
          // GET /metrics on a loopback port of its own (the stack's main prints it) for a Prometheus on this machine.
          AGIO_METRICS_PORT: String(await freePort()),
          // Traces where the stack's own environment says (OTEL_EXPORTER_OTLP_ENDPOINT…), none otherwise.
          ...telemetryEnvironment(),
          ...env,
        },
      });
      track(workers, worker);
      return worker;
    };
    // No fixed token: the caller's, else one made for this stack (production-stack-main prints it).
    const tokens = opts.tokens ?? `${generateToken()}:${GENERATED_TOKEN_TENANT}`;
    const startBridge = async (env: Record<string, string> = {}) => {
      const name = `bridge-${++started.bridge}`;
      const cwd = path.join(dir, name);
      await fs.promises.mkdir(cwd, { recursive: true });
      const bridge = await startAgioProcess({
        kind: 'bridge',
        name,
        dist,
        cwd,
        env: {
          ...bridgeEnvironment(endpoints, {
            port: await freePort(),
            tokens,
            streamTokenSecret,
          }),
          // The bridges listen on loopback only: a Prometheus on this machine scrapes /metrics without a token.
          AGIO_METRICS_PUBLIC: '1',
          ...telemetryEnvironment(),
          ...env,
        },
      });
      track(bridges, bridge);
      return bridge;
    };
    await timed('processes', async () => {
      // The first worker alone: it makes its version current (AGIO_MAKE_CURRENT's default, `first`); the others find
      // that version current and leave it so.
      await startWorker();
      for (let i = 1; i < (opts.workers ?? 2); i++) await startWorker();
      await Promise.all(Array.from({ length: opts.bridges ?? 2 }, () => startBridge()));
    });
    return {
      dir,
      temporal,
      postgres,
      mongoUri,
      natsUrl: nats.url,
      dist,
      workers,
      bridges,
      timings,
      startWorker,
      startBridge,
      cli: (args) =>
        run(process.execPath, [path.join(dist, 'cli', 'main.js'), ...args], {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            ...workerEnvironment(endpoints, { dataDir: dir, model: opts.model }),
          },
        }).then(
          ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
          (err: { code?: number; stdout?: string; stderr?: string }) => ({
            code: typeof err.code === 'number' ? err.code : 1,
            output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
          }),
        ),
      kill: (proc) => proc.kill(),
      restartPostgres: () => postgres.restart(),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
