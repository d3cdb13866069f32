// The `bash` tool: runs a shell command in the run's workspace with a scrubbed environment, a timeout
// that kills the whole process group, and bounded output.
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { HeadTailBuffer } from './output-buffer';
import { ensureWorkspace } from './workspace';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 10 * 60_000;
const OUTPUT_LIMIT_BYTES = 32 * 1024;
const SAFE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** After the shell exits, how long to wait for stdout/stderr to close before giving up on them. */
const CLOSE_GRACE_MS = 2000;

/** The only environment a command sees: none of the worker's variables (API keys stay invisible). */
export function scrubbedEnv(workspace: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH || SAFE_PATH, HOME: workspace, LANG: process.env.LANG || 'C.UTF-8', TERM: 'dumb' };
}

/** How a command ended. */
export interface CommandResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  truncatedBytes: number;
}

/** Options of `runCommand`. */
export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  heartbeat: () => void;
  outputLimit?: number;
}

/**
 * Runs `bash -c command` as the leader of a new process group; on timeout or abort, and once the shell has
 * exited (so background jobs do not outlive the call), the whole group is SIGKILLed.
 */
export function runCommand(command: string, opts: RunOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const out = new HeadTailBuffer(opts.outputLimit ?? OUTPUT_LIMIT_BYTES);
    const child = spawn('bash', ['-c', command], {
      cwd: opts.cwd,
      env: scrubbedEnv(opts.cwd),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
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
      const code = exit?.code ?? child.exitCode;
      const signal = exit?.signal ?? child.signalCode;
      resolve({ output: out.toString(), exitCode: code, signal, timedOut, aborted, truncatedBytes: out.droppedBytes });
    };

    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', (err) => {
      if (settled) return;
      cleanup();
      killGroup();
      reject(new Error(`Could not run bash: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup();
      // A process that left the group may still hold the pipes open; do not wait for it forever.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', finish);
    if (opts.signal.aborted) onAbort();
  });
}

/** Formats a command's result for the model: output, then `exit code: N` (or why there is none). */
function describe(result: CommandResult, timeoutMs: number): string {
  const parts = [result.output.length > 0 ? result.output.replace(/\n$/, '') : '(no output)'];
  if (result.timedOut) parts.push(`[command timed out after ${timeoutMs} ms; its process group was killed]`);
  if (result.aborted) parts.push('[command aborted: the tool call was cancelled; its process group was killed]');
  parts.push(
    result.exitCode !== null
      ? `exit code: ${result.exitCode}`
      : `exit code: none (killed by ${result.signal ?? 'a signal'})`,
  );
  return parts.join('\n');
}

/** Runs a shell command in the workspace (scrubbed env, process-group timeout, capped output). */
export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a bash command in the workspace directory (the working directory and $HOME). stdout and stderr are returned ' +
    `together (at most ${OUTPUT_LIMIT_BYTES / 1024} KB; the middle of longer output is cut), followed by the exit code. ` +
    `Times out after ${DEFAULT_TIMEOUT_MS / 1000} s by default (max ${MAX_TIMEOUT_MS / 60_000} min). ` +
    'The environment holds only PATH, HOME, LANG and TERM; stdin is closed; background processes are killed when the command ends.',
  parameters: z.object({
    command: z.string().min(1).describe('The command line to run with `bash -c`.'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}).`),
  }),
  idempotent: false,
  workspace: 'write',
  timeoutMs: MAX_TIMEOUT_MS + 30_000,
  async execute({ command, timeout_ms: timeoutMs = DEFAULT_TIMEOUT_MS }, ctx) {
    if (ctx.signal.aborted) throw new Error('The tool call was cancelled before the command started.');
    const cwd = await ensureWorkspace(ctx.workspace);
    const result = await runCommand(command, { cwd, timeoutMs, signal: ctx.signal, heartbeat: () => ctx.heartbeat() });
    return {
      content: describe(result, timeoutMs),
      isError: result.exitCode !== 0 || result.timedOut || result.aborted,
      metadata: {
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        truncatedBytes: result.truncatedBytes,
      },
    };
  },
});
