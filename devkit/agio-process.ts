// Agio's own processes as a deployment runs them: `npm run build`'s output (dist/, with the prebuilt workflow bundle)
// and `node dist/worker/main.js` or `node dist/bridge/main.js`, configured by environment variables alone.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../platform/project-root';

const run = promisify(execFile);

/** Which entry point a process runs. */
export type AgioProcessKind = 'worker' | 'bridge';

/** How an Agio process ended. */
export interface AgioExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running worker or bridge. */
export interface AgioProcess {
  kind: AgioProcessKind;
  name: string;
  pid: number;
  /** The environment it was started with (and nothing else). */
  env: Record<string, string>;
  /** A bridge's base URL (http://127.0.0.1:PORT). */
  url?: string;
  exited: Promise<AgioExit>;
  /** The last output lines (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILLs it and resolves once it is gone. */
  kill(): Promise<AgioExit>;
  /** SIGTERM (a graceful stop), SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<AgioExit>;
}

/** What each entry point prints once it serves: the worker polls, the bridge listens. */
const READY: Record<AgioProcessKind, RegExp> = {
  worker: /^agio worker: polling task queue/m,
  bridge: /^agio bridge: (http:\/\/\S+)/m,
};

/** Every process started here, killed if this process exits first (the stack's servers have guards of their own). */
const running = new Set<AgioProcess>();
process.once('exit', () => {
  for (const p of running) process.kill(p.pid, 'SIGKILL');
});

/**
 * Compiles the sources as `npm run build` does (tsc, then the prebuilt workflow bundle) into `<outDir>/dist`, which
 * must lie inside the project (the processes find node_modules and the agents from there); returns that dist.
 */
export async function buildAgio(outDir: string): Promise<string> {
  const root = projectRoot();
  const dist = path.join(outDir, 'dist');
  await run(
    path.join(root, 'node_modules', '.bin', 'tsc'),
    ['-p', path.join(root, 'tsconfig.build.json'), '--outDir', dist, '--declaration', 'false'],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  ).catch((err: { stdout?: string; message: string }) => {
    // tsc still writes JavaScript when only types are wrong; refuse only when nothing runnable came out.
    if (!fs.existsSync(path.join(dist, 'worker', 'main.js')))
      throw new Error(`tsc failed: ${err.stdout || err.message}`);
  });
  const writer = `require(${JSON.stringify(path.join(dist, 'worker', 'prebuilt-bundle'))}).writePrebuiltBundle()`;
  await run(process.execPath, ['-e', writer], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return dist;
}

/**
 * Starts `node <dist>/<kind>/main.js` with exactly `env` (plus PATH) in `cwd`, and resolves once it serves; rejects
 * with its output when it exits first or is not ready within `readyMs`.
 */
export function startAgioProcess(opts: {
  kind: AgioProcessKind;
  name: string;
  dist: string;
  env: Record<string, string>;
  cwd: string;
  readyMs?: number;
}): Promise<AgioProcess> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...opts.env };
  const child = spawn(process.execPath, [path.join(opts.dist, opts.kind, 'main.js')], {
    cwd: opts.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  let seen = '';
  let served = false;
  const exited = new Promise<AgioExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stopWith = async (signal: NodeJS.Signals, graceMs: number): Promise<AgioExit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  };
  const proc: AgioProcess = {
    kind: opts.kind,
    name: opts.name,
    pid: child.pid ?? -1,
    env,
    exited,
    output: () => tail,
    kill: () => stopWith('SIGKILL', 0),
    stop: (graceMs = 10_000) => stopWith('SIGTERM', graceMs),
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return new Promise<AgioProcess>((resolve, reject) => {
    const fail = (why: string) => {
      if (served) return;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${opts.name} ${why}:\n${tail}`));
    };
    const timer = setTimeout(() => fail(`was not ready within ${opts.readyMs ?? 60_000} ms`), opts.readyMs ?? 60_000);
    void exited.then(({ code, signal }) => fail(`exited (code ${code}, signal ${signal}) before it was ready`));
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-20_000);
      if (served) return;
      seen += chunk.toString();
      const ready = READY[opts.kind].exec(seen);
      if (!ready) return;
      served = true;
      clearTimeout(timer);
      if (ready[1]) proc.url = ready[1];
      resolve(proc);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
}
