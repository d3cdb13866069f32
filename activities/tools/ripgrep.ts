// Runs ripgrep over a run's workspace inside the worker's sandbox (read-only), for grep and glob: a linear-time regex
// engine in its own process, so no pattern a model writes can hold the worker's event loop.
import * as path from 'node:path';
import { sandboxOf, type ToolContext } from './define-tool';
import { realWorkspace, relativeToWorkspace, resolveInWorkspace } from './workspace';

/** How long one ripgrep may run: grep and glob are quick tools (local activities of at most 10 s by default). */
const RG_TIMEOUT_MS = 8_000;
/** The most output read from ripgrep; past it the process is stopped and the results are capped. */
const RG_OUTPUT_BYTES = 2 * 1024 * 1024;

/** Options every search starts with: no config files, hidden files searched, ignore files not read, stable order. */
export const RG_BASE = [
  '--no-config',
  '--hidden',
  '--no-ignore',
  '--sort',
  'path',
  '-g',
  '!node_modules',
  '-g',
  '!.git',
];

/** A workspace path resolved for ripgrep: what to pass it, and the real path. */
export interface SearchTarget {
  /** Real workspace root. */
  root: string;
  /** Real path of the target. */
  real: string;
  /** The target relative to the workspace (`.` for the root), as ripgrep is given it. */
  rel: string;
}

/** Resolves `userPath` inside the workspace (it must exist). */
export async function searchTarget(ctx: ToolContext, userPath: string): Promise<SearchTarget> {
  const root = await realWorkspace(ctx.workspace);
  const real = await resolveInWorkspace(ctx.workspace, userPath, { mustExist: true });
  return { root, real, rel: relativeToWorkspace(root, real) };
}

/** ripgrep's output lines (at most `maxLines`), whether there were more, and its exit code and error text. */
export async function runRipgrep(
  ctx: ToolContext,
  root: string,
  args: string[],
  maxLines: number,
): Promise<{ lines: string[]; capped: boolean; exitCode: number | null; stderr: string; timedOut: boolean }> {
  const sandbox = sandboxOf(ctx);
  const result = await sandbox.run([sandbox.rg(), ...args], {
    workspace: root,
    writable: false,
    timeoutMs: RG_TIMEOUT_MS,
    signal: ctx.signal,
    heartbeat: () => ctx.heartbeat(),
    outputLimit: RG_OUTPUT_BYTES,
    keep: 'head',
    stdoutOnly: true,
  });
  if (result.aborted) throw new Error('Aborted');
  const lines = result.output.split('\n');
  // A cut output ends in a partial line; a whole one ends in a newline.
  lines.pop();
  return {
    lines: lines.slice(0, maxLines),
    capped: lines.length > maxLines || result.cut,
    exitCode: result.exitCode,
    stderr: result.stderr.trim(),
    timedOut: result.timedOut,
  };
}

/** A path ripgrep printed (relative to the workspace) as shown to the model. */
export function shownPath(rgPath: string): string {
  return path.posix.normalize(rgPath.replace(/^\.\//, ''));
}
