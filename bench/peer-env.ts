// The PEER benchmark's side of the environment: installs bench/peer-openai-agents (its own package, pinned to
// @temporalio/openai-agents 1.23.0 and Temporal SDK 1.23.0) on demand, and runs its two processes against the
// bench's live dev server and scripted model: a peer worker (OpenAIAgentsPlugin on its own task queue) and a
// stream subscriber (WorkflowStreamClient). Peer runs are started and awaited by the bench's own Temporal
// client, exactly like Agio's, so both are timed from the same process.
import type { WorkflowHandle } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { planInput, type RunPlan } from './model';
import {
  PEER_CONFIG_ENV,
  PEER_WORKFLOW,
  type PeerConfig,
  type PeerReadyInfo,
  type PeerRunInput,
  type PeerRunOutput,
  type SubscribeRequest,
  type SubscriberMessage,
} from './peer-openai-agents/src/protocol';
import { startProcess, type BenchEnv, type ChildService } from './setup';

export const PEER_DIR = path.join(__dirname, 'peer-openai-agents');
/** Written into the peer's node_modules after a successful install: the hash of the manifests it installed. */
const STAMP = path.join(PEER_DIR, 'node_modules', '.agio-bench-installed');

function manifestHash(): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) {
    const p = path.join(PEER_DIR, file);
    if (fs.existsSync(p)) hash.update(fs.readFileSync(p));
  }
  return hash.digest('hex');
}

function npm(args: string[], log: (msg: string) => void): Promise<void> {
  log(`PEER: npm ${args.join(' ')} (in ${path.relative(process.cwd(), PEER_DIR)})`);
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: PEER_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (s: Buffer) => {
      output = (output + s.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`npm ${args[0]} failed (code ${code}, signal ${signal}):\n${output}`));
    });
  });
}

/** Installs the peer package unless its node_modules already match package.json and package-lock.json. */
export async function ensurePeerInstalled(log: (msg: string) => void): Promise<void> {
  if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === manifestHash()) return;
  const t0 = Date.now();
  const flags = ['--no-audit', '--no-fund'];
  try {
    if (!fs.existsSync(path.join(PEER_DIR, 'package-lock.json'))) throw new Error('no package-lock.json');
    await npm(['ci', ...flags], log);
  } catch (err) {
    // npm 11 sometimes rejects its own lockfile in `npm ci`; `npm install` still honours the exact pins.
    const why =
      (err as Error).message.split('\n').find((l) => /^npm error [^c\s]/.test(l)) ??
      (err as Error).message.split('\n')[0];
    log(`PEER: npm ci did not succeed (${why}); falling back to npm install`);
    await npm(['install', ...flags], log);
  }
  fs.writeFileSync(STAMP, manifestHash());
  log(`PEER: installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** What the subscriber process reported for one followed run. */
export interface Subscription {
  /** Epoch ms of the first item (the subscription is live). */
  opened: Promise<number>;
  done: Promise<{ items: number; deltas: [content: string, receivedAt: number][]; signalError?: string }>;
}

type PeerHandle = WorkflowHandle<(input: PeerRunInput) => Promise<PeerRunOutput>>;

/** The peer's processes plus how to start, await and follow peer runs. */
export class PeerEnv {
  /** The peer's own task queue (a new one after each {@link restart}). */
  taskQueue = '';
  worker!: ChildService & { info: PeerReadyInfo };
  subscriber!: ChildService;
  private readonly waiting = new Map<
    string,
    { open(at: number): void; done(v: Awaited<Subscription['done']>): void; fail(err: Error): void }
  >();
  private seq = 0;
  private closing = false;
  /** Rejects once either peer process exits while in use (waits on its runs would otherwise hang forever). */
  private died!: Promise<never>;
  private die!: (err: Error) => void;

  private constructor(readonly env: BenchEnv) {}

  private watch(name: string, p: ChildService): void {
    void p.exited.then(({ code, signal }) => {
      if (this.closing) return;
      const err = new Error(
        `peer ${name} process exited (code ${code}, signal ${signal}); stderr:\n${p.stderr().slice(-3000)}`,
      );
      this.env.log(err.message);
      this.die(err);
      for (const w of this.waiting.values()) w.fail(err);
    });
  }

  /** `promise`, unless a peer process dies first. */
  alive<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.died]);
  }

  /** Starts the peer worker (its workflow bundle is built at start-up) and the subscriber process. */
  static async start(env: BenchEnv): Promise<PeerEnv> {
    const peer = new PeerEnv(env);
    await peer.startProcesses();
    return peer;
  }

  /** Stops both processes and starts new ones on a new task queue (after a phase that left the worker overloaded). */
  async restart(): Promise<void> {
    await this.close();
    await this.startProcesses();
  }

  private async startProcesses(): Promise<void> {
    this.closing = false;
    this.died = new Promise<never>((_, reject) => (this.die = reject));
    this.died.catch(() => undefined);
    this.taskQueue = `bench-peer-${randomUUID().slice(0, 8)}`;
    const { env } = this;
    const config = (role: PeerConfig['role']): NodeJS.ProcessEnv => ({
      ...process.env,
      [PEER_CONFIG_ENV]: JSON.stringify({
        role,
        address: env.temporal.address,
        taskQueue: this.taskQueue,
        modelBaseURL: env.model.baseURL,
      } satisfies PeerConfig),
    });
    // `--import tsx` resolves from the cwd, i.e. the peer package's own tsx; its code resolves its own @temporalio/*.
    // BENCH_PEER_WORKER_NODE_ARGS: extra node flags for the peer worker (diagnosis, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
    const extra = process.env.BENCH_PEER_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    this.worker = (await startProcess({
      name: 'peer worker',
      args: [...extra, '--import', 'tsx', path.join('src', 'worker.ts')],
      cwd: PEER_DIR,
      env: config('worker'),
      readyTimeoutMs: 240_000,
    })) as PeerEnv['worker'];
    try {
      this.subscriber = await startProcess({
        name: 'peer subscriber',
        args: ['--import', 'tsx', path.join('src', 'subscriber.ts')],
        cwd: PEER_DIR,
        env: config('subscriber'),
        stdin: true,
        onLine: (line) => this.onSubscriberLine(line),
      });
    } catch (err) {
      await this.worker.stop();
      throw err;
    }
    this.watch('worker', this.worker);
    this.watch('subscriber', this.subscriber);
  }

  private onSubscriberLine(line: string): void {
    let msg: SubscriberMessage;
    try {
      msg = JSON.parse(line) as SubscriberMessage;
    } catch {
      return this.env.log(`PEER subscriber: ${line}`);
    }
    const w = this.waiting.get(msg.tag);
    if (!w) return;
    if (msg.op === 'open') w.open(msg.at);
    else if (msg.op === 'done') w.done({ items: msg.items, deltas: msg.deltas, signalError: msg.signalError });
    else w.fail(new Error(`peer subscriber: ${msg.message}`));
  }

  /** Starts one peer run following `plan`, by the bench's own Temporal client (no plugin: the workflow sets its model options). */
  start(plan: RunPlan, stream: boolean, awaitSubscriber = false): Promise<PeerHandle> {
    return this.env.client.workflow.start<(input: PeerRunInput) => Promise<PeerRunOutput>>(PEER_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: `peer-${plan.tag}-${this.seq++}`,
      args: [{ input: planInput(plan), maxTurns: plan.steps + 5, stream, awaitSubscriber }],
    });
  }

  /** Starts a peer run and waits for its output; checks that it made the planned number of model calls. */
  async run(plan: RunPlan, stream: boolean): Promise<{ handle: PeerHandle; output: PeerRunOutput }> {
    const handle = await this.start(plan, stream);
    const output = await this.alive(handle.result());
    if (output.modelCalls !== plan.steps)
      throw new Error(`peer run ${handle.workflowId} made ${output.modelCalls} model calls, expected ${plan.steps}`);
    return { handle, output };
  }

  /** Asks the subscriber process to follow a run's stream (`signalDone`: the run was started with `awaitSubscriber`). */
  subscribe(workflowId: string, tag: string, signalDone: boolean): Subscription {
    let open!: (at: number) => void;
    let done!: (v: Awaited<Subscription['done']>) => void;
    let fail!: (err: Error) => void;
    const opened = new Promise<number>((resolve) => (open = resolve));
    const finished = new Promise<Awaited<Subscription['done']>>((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    this.waiting.set(tag, { open, done, fail });
    void finished.catch(() => undefined).finally(() => this.waiting.delete(tag));
    this.subscriber.send({ op: 'subscribe', workflowId, tag, signalDone } satisfies SubscribeRequest);
    return { opened, done: finished };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.subscriber?.stop().catch(() => undefined);
    await this.worker?.stop().catch(() => undefined);
    for (const [name, p] of [
      ['worker', this.worker],
      ['subscriber', this.subscriber],
    ] as const) {
      const stderr = p?.stderr().trim();
      if (stderr) this.env.log(`PEER ${name} stderr (last 2000 characters):\n${stderr.slice(-2000)}`);
    }
  }
}
