// Runs one process with bounded output, a wall-clock timeout and cancellation; on any end the whole process group is
// SIGKILLed (a sandboxed process group is bwrap, whose death takes the sandbox's pid namespace with it).
import { spawn, type SpawnOptions } from 'node:child_process';
import type { Writable } from 'node:stream';
import { HeadTailBuffer } from '../tools/output-buffer';

/** After the process exits, how long to wait for stdout/stderr to close before giving up on them. */
const CLOSE_GRACE_MS = 2000;

/** How a process ended. */
export interface CommandResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  truncatedBytes: number;
  /** The output reached `outputLimit` in `head` mode and the process was killed for it. */
  cut: boolean;
}

/** Options of `runProcess`. */
export interface ProcessOptions {
  timeoutMs: number;
  signal: AbortSignal;
  heartbeat: () => void;
  outputLimit: number;
  /**
   * `headTail` keeps the first and last bytes; `head` keeps the first `outputLimit` bytes and then kills the process.
   */
  keep?: 'headTail' | 'head';
  /** Only stdout is collected (stderr is kept apart, at most 4 KiB, in `stderr`). */
  stdoutOnly?: boolean;
  spawn: Pick<SpawnOptions, 'cwd' | 'env' | 'uid' | 'gid'>;
  /** Bytes the process reads from its file descriptor 3 (bwrap's `--seccomp 3`). */
  fd3?: Buffer;
}

/** Runs `file args` as the leader of a new process group, killing the group on timeout, abort, or once it exits. */
export function runProcess(
  file: string,
  args: string[],
  opts: ProcessOptions,
): Promise<CommandResult & { stderr: string }> {
  return new Promise((resolve, reject) => {
    const out = new HeadTailBuffer(opts.keep === 'head' ? opts.outputLimit * 2 : opts.outputLimit);
    const err = new HeadTailBuffer(4096);
    const stdio = opts.fd3 ? (['ignore', 'pipe', 'pipe', 'pipe'] as const) : (['ignore', 'pipe', 'pipe'] as const);
    const child = spawn(file, args, { ...opts.spawn, detached: true, stdio: [...stdio] });
    if (opts.fd3) (child.stdio[3] as Writable).end(opts.fd3);
    let timedOut = false;
    let aborted = false;
    let cut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const beat = setInterval(() => opts.heartbeat(), 1000);
    opts.signal.addEventListener('abort', onAbort, { once: true });

    const cleanup = () => {
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      clearInterval(beat);
      opts.signal.removeEventListener('abort', onAbort);
    };
    const finish = () => {
      if (settled) return;
      cleanup();
      const text = out.toString();
      resolve({
        output: opts.keep === 'head' ? text.slice(0, opts.outputLimit) : text,
        exitCode: exit?.code ?? child.exitCode,
        signal: exit?.signal ?? child.signalCode,
        timedOut,
        aborted,
        truncatedBytes: out.droppedBytes,
        cut,
        stderr: err.toString(),
      });
    };
    const collect = (chunk: Buffer) => {
      out.push(chunk);
      if (opts.keep === 'head' && out.total > opts.outputLimit && !cut) {
        cut = true;
        killGroup();
      }
    };

    child.stdout!.on('data', collect);
    child.stderr!.on('data', opts.stdoutOnly ? (chunk: Buffer) => err.push(chunk) : collect);
    child.on('error', (e) => {
      if (settled) return;
      cleanup();
      killGroup();
      reject(new Error(`Could not run ${file}: ${e.message}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup();
      // A process that left the group may still hold the pipes open; do not wait for it forever.
      grace = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', finish);
    if (opts.signal.aborted) onAbort();
  });
}
