// Starts a server process that cannot outlive its parent: a tiny bash guard holds a pipe from us and
// kills the server when the pipe closes, which also happens when our process is SIGKILLed.
import { spawn, ChildProcess } from 'node:child_process';

const GUARD = [
  '"$@" </dev/null & pid=$!',
  "trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP",
  'read -r _ || true',
  'kill -TERM $pid 2>/dev/null',
  'for _ in $(seq 100); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.1; done',
  'kill -KILL $pid 2>/dev/null; exit 0',
].join('\n');

/** A running guarded process; `stop()` ends it (TERM, then KILL after 10 s) and resolves when it is gone. */
export interface SupervisedProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Last lines the process printed, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Spawns `command args…` under the guard; output is kept (bounded) for diagnostics. */
export function startSupervised(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): SupervisedProcess {
  const child = spawn('bash', ['-c', GUARD, 'agio-guard', command, ...args], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? -1,
    child,
    output: () => tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      await exited;
    },
  };
}
