// The benchmark environment: one Temporal dev server, one scripted model server (in this, the measuring
// process), a prebuilt workflow bundle, and Agio services in their own OS processes (a worker, and a bridge
// when a benchmark needs one). Plus history and process helpers shared by the benchmarks.
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient, type RunHandle, type StartOptions } from '../client/agio-client';
import { defineAgent, type AgentSpec, type RunOutput } from '../common';
import { ScriptedModelServer, text } from '../devkit/scripted-model-server';
import { startNatsServer, type NatsServer } from '../devkit/nats-server';
import {
  startTemporalDevServer,
  type TemporalDevServer,
  type TemporalDevServerOptions,
} from '../devkit/temporal-server';
import { writeWorkflowBundle } from '../devkit/workflow-bundle';
import { planInput, planOf, planTurn, type RunPlan } from './model';

const REPO_ROOT = path.resolve(__dirname, '..');
export const BENCH_TOKEN = 'bench-token';

/** What a child process (bench/child.ts) reads from BENCH_CHILD_CONFIG. */
export interface ChildConfig {
  /** `serve`: a worker and a bridge in one process sharing an in-process live lane, as `agio serve` runs them. */
  role: 'worker' | 'bridge' | 'serve';
  address: string;
  taskQueue: string;
  /** worker: the scripted model server. */
  modelBaseURL?: string;
  /** worker: path of the prebuilt workflow bundle. */
  workflowBundle?: string;
  /** worker: directory for run workspaces. */
  workspaceRoot?: string;
  /** bridge: `token:tenant,…`. */
  tokens?: string;
  /** worker and bridge: NATS for the live lane (deltas travel there instead of into the root's history). */
  natsUrl?: string;
}

/** The environment variable carrying a child's config (bench/child.ts reads the same name). */
export const CHILD_CONFIG_ENV = 'BENCH_CHILD_CONFIG';

/** A service running in its own OS process. */
export interface ChildService {
  pid: number;
  /** What the child printed after READY (the bridge's `url`). */
  info: { pid: number; url?: string } & Record<string, unknown>;
  /** ms from spawn until READY. */
  startupMs: number;
  kill(signal: NodeJS.Signals): void;
  alive(): boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  stderr(): string;
  /** Writes one JSON line to the child's stdin (only when started with `stdin: true`). */
  send(message: unknown): void;
}

/** How to start a service process (see {@link startProcess}). */
export interface ProcessSpec {
  /** For error messages, e.g. `worker`. */
  name: string;
  /** Arguments of `node` (the script and its loader flags). */
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdin open for {@link ChildService.send}. */
  stdin?: boolean;
  /** Every stdout line after READY. */
  onLine?: (line: string) => void;
  readyTimeoutMs?: number;
}

/** Spawns `node --import tsx bench/child.ts` and resolves once it prints READY. */
export function startChild(config: ChildConfig, readyTimeoutMs = 60_000): Promise<ChildService> {
  // BENCH_WORKER_NODE_ARGS: extra node flags for the worker (diagnosis, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
  const extra = config.role === 'worker' ? (process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []) : [];
  return startProcess({
    name: config.role,
    args: [...extra, '--import', 'tsx', path.join('bench', 'child.ts')],
    cwd: REPO_ROOT,
    env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(config) },
    readyTimeoutMs,
  });
}

/** Spawns `node <args>` and resolves once it prints `READY <json>` on a line of its own. */
export function startProcess(spec: ProcessSpec): Promise<ChildService> {
  const readyTimeoutMs = spec.readyTimeoutMs ?? 60_000;
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  return new Promise<ChildService>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      if (alive()) child.kill('SIGKILL');
      reject(new Error(`bench ${spec.name} process ${why}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no READY within ${readyTimeoutMs} ms`), readyTimeoutMs);
    let ready = false;
    let pending = '';
    void exited.then(({ code, signal }) => {
      if (!ready) fail(`exited (code ${code}, signal ${signal}) before it was ready`);
    });
    // After READY: hand complete lines to onLine (and keep no transcript).
    const drain = () => {
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim()) spec.onLine?.(line);
    };
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      if (ready) {
        pending += s;
        return drain();
      }
      stdout += s;
      const match = /^READY (.*)$/m.exec(stdout);
      if (!match) return;
      ready = true;
      clearTimeout(timer);
      // Lines the child printed after READY in the same chunk.
      pending = stdout.slice(match.index + match[0].length + 1);
      const kill = (signal: NodeJS.Signals) => {
        if (alive()) child.kill(signal);
      };
      resolve({
        pid: child.pid!,
        info: JSON.parse(match[1]) as ChildService['info'],
        startupMs: Date.now() - spawnedAt,
        kill,
        alive,
        exited,
        async stop(graceMs = 10_000) {
          if (!alive()) return;
          kill('SIGTERM');
          const t = setTimeout(() => kill('SIGKILL'), graceMs);
          await exited;
          clearTimeout(t);
        },
        stderr: () => stderr,
        send(message: unknown) {
          if (!child.stdin) throw new Error(`bench ${spec.name} process was started without stdin`);
          child.stdin.write(JSON.stringify(message) + '\n');
        },
      });
      drain();
    });
  });
}

/** `pid` and all its descendants (Linux /proc). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** Resident set size of a process and its descendants in MB (Linux /proc), or NaN. */
export function rssMb(pid: number): number {
  let kb = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return kb ? kb / 1024 : NaN;
}

/** CPU time (user + system) a process and its descendants have used so far, in seconds (Linux /proc), or NaN. */
export function cpuSeconds(pid: number): number {
  let ticks = 0;
  let found = false;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command name, utime and stime are the 12th and 13th fields (fields 14 and 15 of proc(5)).
      ticks += Number(fields[11]) + Number(fields[12]);
      found = true;
    } catch {
      // gone meanwhile
    }
  }
  return found ? ticks / 100 : NaN;
}

/** The 1-minute load average. */
export function load1(): number {
  return os.loadavg()[0];
}

/** Options of {@link createBenchEnv}. */
export interface BenchEnvOptions {
  /** Tiny iteration counts (development). */
  quick: boolean;
  log: (msg: string) => void;
  /** Dev server settings other than the tuned defaults (the SETTINGS benchmark measures them one by one). */
  temporal?: Pick<TemporalDevServerOptions, 'untuned' | 'dynamicConfig'>;
}

/** Everything a benchmark uses. */
export class BenchEnv {
  worker!: ChildService;
  /** Per run tag: the model holds that run's answers until the promise settles (B2 waits for its SSE client). */
  readonly gates = new Map<string, Promise<void>>();
  private bridge: ChildService | undefined;
  private serve: (ChildService & { url: string; agio: AgioClient }) | undefined;
  private natsLane:
    { nats: NatsServer; worker: ChildService; bridge: ChildService & { url: string }; agio: AgioClient } | undefined;

  private constructor(
    readonly opts: BenchEnvOptions,
    readonly dir: string,
    readonly temporal: TemporalDevServer,
    readonly model: ScriptedModelServer,
    readonly connection: Connection,
    readonly client: Client,
    readonly agio: AgioClient,
    readonly bundlePath: string,
    readonly taskQueue: string,
  ) {}

  get quick(): boolean {
    return this.opts.quick;
  }

  log(msg: string): void {
    this.opts.log(msg);
  }

  /** Starts the dev server, the scripted model, the bundle and the worker process. */
  static async create(opts: BenchEnvOptions): Promise<BenchEnv> {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-bench-'));
    opts.log(`bench: starting Temporal dev server, scripted model server and workflow bundle (${dir})`);
    const [temporal, model, bundlePath] = await Promise.all([
      startTemporalDevServer({
        dbFilename: path.join(dir, 'temporal.db'),
        log: opts.log,
        untuned: opts.temporal?.untuned,
        dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': true, ...opts.temporal?.dynamicConfig },
      }),
      ScriptedModelServer.start(),
      writeWorkflowBundle(require.resolve('./workflows'), dir),
    ]);
    const connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection });
    const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
    const env = new BenchEnv(
      opts,
      dir,
      temporal,
      model,
      connection,
      client,
      new AgioClient(client, { taskQueue }),
      bundlePath,
      taskQueue,
    );
    installBenchResponder(env);
    env.worker = await env.startWorker();
    env.log(
      `bench: Temporal ${temporal.address} (pid ${temporal.pid}), model ${model.baseURL}, worker pid ${env.worker.pid} (ready in ${env.worker.startupMs} ms)`,
    );
    return env;
  }

  /** Starts a worker process on the bench task queue (the caller keeps or replaces `this.worker`). */
  startWorker(): Promise<ChildService> {
    return startChild({
      role: 'worker',
      address: this.temporal.address,
      taskQueue: this.taskQueue,
      modelBaseURL: this.model.baseURL,
      workflowBundle: this.bundlePath,
      workspaceRoot: path.join(this.dir, 'workspaces'),
    });
  }

  /** The bridge process (started on first use). */
  async bridgeService(): Promise<ChildService & { url: string }> {
    this.bridge ??= await startChild({
      role: 'bridge',
      address: this.temporal.address,
      taskQueue: this.taskQueue,
      tokens: `${BENCH_TOKEN}:default`,
    });
    return Object.assign(this.bridge, { url: this.bridge.info.url! });
  }

  /**
   * A worker and a bridge in one process with an in-process live lane, as `agio serve` runs them (started on first
   * use), on a task queue of their own; `agio` starts runs there.
   */
  async serveService(): Promise<ChildService & { url: string; agio: AgioClient }> {
    if (!this.serve) {
      const taskQueue = `${this.taskQueue}-live`;
      const child = await startChild({
        role: 'serve',
        address: this.temporal.address,
        taskQueue,
        modelBaseURL: this.model.baseURL,
        workflowBundle: this.bundlePath,
        workspaceRoot: path.join(this.dir, 'workspaces'),
        tokens: `${BENCH_TOKEN}:default`,
      });
      this.serve = Object.assign(child, { url: child.info.url!, agio: new AgioClient(this.client, { taskQueue }) });
    }
    return this.serve;
  }

  /**
   * A NATS server, and a worker and a bridge in processes of their own that carry deltas over it (started on first
   * use), on a task queue of their own; `agio` starts runs there.
   */
  async natsService(): Promise<{
    nats: NatsServer;
    worker: ChildService;
    bridge: ChildService & { url: string };
    agio: AgioClient;
  }> {
    if (!this.natsLane) {
      const nats = await startNatsServer({ log: this.opts.log });
      const taskQueue = `${this.taskQueue}-nats`;
      const [worker, bridge] = await Promise.all([
        startChild({
          role: 'worker',
          address: this.temporal.address,
          taskQueue,
          modelBaseURL: this.model.baseURL,
          workflowBundle: this.bundlePath,
          workspaceRoot: path.join(this.dir, 'workspaces'),
          natsUrl: nats.url,
        }),
        startChild({
          role: 'bridge',
          address: this.temporal.address,
          taskQueue,
          tokens: `${BENCH_TOKEN}:default`,
          natsUrl: nats.url,
        }),
      ]);
      this.natsLane = {
        nats,
        worker,
        bridge: Object.assign(bridge, { url: bridge.info.url! }),
        agio: new AgioClient(this.client, { taskQueue }),
      };
    }
    return this.natsLane;
  }

  /**
   * Starts one run of the bench agent following `plan` (run limits may be overridden), by default on the bench worker.
   */
  start(plan: RunPlan, limits: StartOptions['limits'] = {}, agio: AgioClient = this.agio): Promise<RunHandle> {
    return agio.start(benchAgent, planInput(plan), { limits: { maxSteps: plan.steps + 5, ...limits } });
  }

  /** Starts a run and waits for its output. */
  async run(
    plan: RunPlan,
    limits: StartOptions['limits'] = {},
    agio: AgioClient = this.agio,
  ): Promise<{ handle: RunHandle; output: RunOutput }> {
    const handle = await this.start(plan, limits, agio);
    return { handle, output: await handle.result() };
  }

  /** Replaces the worker process if it is gone (after a benchmark that failed while it was down). */
  async ensureWorker(): Promise<void> {
    if (!this.worker.alive()) this.worker = await this.startWorker();
  }

  /** Stops everything this environment started. */
  async close(): Promise<void> {
    await this.bridge?.stop().catch(() => undefined);
    await this.serve?.stop().catch(() => undefined);
    await this.natsLane?.bridge.stop().catch(() => undefined);
    await this.natsLane?.worker.stop().catch(() => undefined);
    await this.natsLane?.nats.stop().catch(() => undefined);
    await this.worker?.stop().catch(() => undefined);
    await this.connection.close().catch(() => undefined);
    await this.model.close();
    await this.temporal.stop();
    await fs.promises.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The agent every benchmark runs: one trivial tool, the rest comes from the run's plan. */
export const benchAgent: AgentSpec = defineAgent({
  name: 'bench',
  description: 'benchmark agent',
  instructions: 'You are a benchmark agent.',
  tools: ['bench_echo', 'bench_echo_activity'],
});

/** Answers every request from its run's plan (after its gate, if any); requests without one get a short text. */
function installBenchResponder(env: BenchEnv): void {
  env.model.setDefault(async (req) => {
    const plan = planOf(req);
    if (!plan) return text('ok');
    await env.gates.get(plan.tag);
    return planTurn(plan, req);
  });
}

/** The events Queries a bridge's stream readers have made so far (its GET /healthz counter; B2, B6). */
export async function bridgeQueries(url: string): Promise<number> {
  const res = await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  return ((await res.json()) as { streams: { queries: number } }).streams.queries;
}

// ---- histories ---------------------------------------------------------------------------------------------

/** A workflow history as the client fetches it. */
export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

/** An event's type without the proto prefix, e.g. `ActivityTaskScheduled` (from the attributes field it carries). */
export function eventType(event: HistoryEvent): string {
  const key = Object.keys(event).find(
    (k) => k.endsWith('EventAttributes') && (event as Record<string, unknown>)[k] != null,
  );
  return key ? key[0].toUpperCase() + key.slice(1, -'EventAttributes'.length) : 'Unknown';
}

/** Epoch ms of an event. */
export function eventTime(event: HistoryEvent): number {
  return tsToMs(event.eventTime);
}

/** Size of a history as JSON (the format `temporal workflow show --output json` prints), in bytes. */
export function historyBytes(history: History): number {
  return Buffer.byteLength(historyToJSON(history));
}

/** Size of a history as protobuf (what the server stores and counts against its history size limits), in bytes. */
export function historyProtoBytes(history: History): number {
  return temporal.api.history.v1.History.encode(history).finish().length;
}

/** Size of one event as JSON, in bytes. */
export function eventBytes(event: HistoryEvent): number {
  return Buffer.byteLength(historyToJSON({ events: [event] }));
}

/** How many events of each type. */
export function countByType(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of history.events ?? []) counts[eventType(e)] = (counts[eventType(e)] ?? 0) + 1;
  return counts;
}

/** Schedule-to-start latency of every activity attempt recorded in a history (ms), with its type. */
export function activityScheduleToStart(history: History): { type: string; ms: number }[] {
  const scheduled = new Map<number, { at: number; type: string }>();
  const out: { type: string; ms: number }[] = [];
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes) {
      scheduled.set(id, { at: eventTime(e), type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?' });
    } else if (e.activityTaskStartedEventAttributes) {
      const s = scheduled.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s) out.push({ type: s.type, ms: eventTime(e) - s.at });
    }
  }
  return out;
}

/** One activity of a history: type and the times of its scheduled, (last) started and closing events. */
export interface ActivityTimes {
  type: string;
  scheduledAt: number;
  startedAt?: number;
  closedAt?: number;
}

/** Every activity of a history in scheduling order, with its times. */
export function activityTimeline(history: History): ActivityTimes[] {
  const byId = new Map<number, ActivityTimes>();
  const out: ActivityTimes[] = [];
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const a = { type: scheduled.activityType?.name ?? '?', scheduledAt: eventTime(e) };
      byId.set(Number(e.eventId), a);
      out.push(a);
      continue;
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const a = byId.get(Number(started.scheduledEventId));
      if (a) a.startedAt = eventTime(e);
      continue;
    }
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closed && 'scheduledEventId' in closed) {
      const a = byId.get(Number(closed.scheduledEventId));
      if (a) a.closedAt = eventTime(e);
    }
  }
  return out;
}

/** Schedule-to-start latency of every workflow task in a history (ms). */
export function workflowTaskScheduleToStart(history: History): number[] {
  const scheduled = new Map<number, number>();
  const out: number[] = [];
  for (const e of history.events ?? []) {
    if (e.workflowTaskScheduledEventAttributes) scheduled.set(Number(e.eventId), eventTime(e));
    else if (e.workflowTaskStartedEventAttributes) {
      const at = scheduled.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId));
      if (at !== undefined) out.push(eventTime(e) - at);
    }
  }
  return out;
}

// ---- concurrency -------------------------------------------------------------------------------------------

/** Runs `task(i)` for i in [0, n) with at most `limit` at a time; results in index order. */
export async function pool<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** Sleeps `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
