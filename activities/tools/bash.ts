// The `bash` tool: runs a shell command over the run's workspace inside the worker's sandbox (bubblewrap: its own
// namespaces, a read-only system, no environment, resource limits), with a timeout that kills everything it started.
import { z } from 'zod';
import { defineTool, sandboxOf } from './define-tool';
import type { CommandResult } from '../sandbox/run-process';
import { ensureWorkspace } from './workspace';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 10 * 60_000;
const OUTPUT_LIMIT_BYTES = 32 * 1024;

/** Formats a command's result for the model: output, then `exit code: N` (or why there is none). */
function describe(result: CommandResult, timeoutMs: number): string {
  const parts = [result.output.length > 0 ? result.output.replace(/\n$/, '') : '(no output)'];
  if (result.timedOut) parts.push(`[command timed out after ${timeoutMs} ms; every process it started was killed]`);
  if (result.aborted) parts.push('[command aborted: the tool call was cancelled; every process it started was killed]');
  parts.push(
    result.exitCode !== null
      ? `exit code: ${result.exitCode}`
      : `exit code: none (killed by ${result.signal ?? 'a signal'})`,
  );
  return parts.join('\n');
}

/** A bash tool: `network` shares the worker's whole network with the sandbox (all of it, loopback included). */
export function createBashTool({ name, network }: { name: string; network: boolean }) {
  return defineTool({
    name,
    description:
      'Run a bash command in the workspace directory (the working directory and $HOME), inside a sandbox: only the ' +
      `workspace is writable, ${network ? 'the network is reachable' : 'there is no network'}, and CPU, memory, processes and file sizes ` +
      `are limited. stdout and stderr are returned together (at most ${OUTPUT_LIMIT_BYTES / 1024} KB; the middle of ` +
      `longer output is cut), followed by the exit code. Times out after ${DEFAULT_TIMEOUT_MS / 1000} s by default ` +
      `(max ${MAX_TIMEOUT_MS / 60_000} min). The environment holds only PATH, HOME, LANG and TERM; stdin is closed; ` +
      'background processes are killed when the command ends.',
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
      const sandbox = sandboxOf(ctx);
      if (ctx.signal.aborted) throw new Error('The tool call was cancelled before the command started.');
      const workspace = await ensureWorkspace(ctx.workspace);
      const result = await sandbox.run(['/bin/bash', '-c', command], {
        workspace,
        writable: true,
        network,
        timeoutMs,
        signal: ctx.signal,
        heartbeat: () => ctx.heartbeat(),
        outputLimit: OUTPUT_LIMIT_BYTES,
      });
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
}

/** Runs a shell command in the workspace, in the sandbox (no network, scrubbed env, limits, timeout, capped output). */
export const bashTool = createBashTool({ name: 'bash', network: false });

/**
 * bash with the worker's network (registered only where the operator allows it, AGIO_SANDBOX_NETWORK_TOOL=1): an agent
 * that lists it may reach anything the worker can, its loopback services included.
 */
export const bashNetworkTool = createBashTool({ name: 'bash_network', network: true });
