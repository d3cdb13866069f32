// Confines file tools to a run's workspace: every user-supplied path is resolved (symlinks included)
// and refused unless its real location is the workspace or below it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Thrown when a path resolves (after following symlinks) outside the run's workspace. */
export class WorkspaceEscapeError extends Error {
  override readonly name = 'WorkspaceEscapeError';
  constructor(readonly userPath: string) {
    super(`Path "${userPath}" is outside the run's workspace; only paths inside the workspace are allowed.`);
  }
}

/** Options of `resolveInWorkspace`. */
export interface ResolveOptions {
  /** Throw a "no such file or directory" error when the path does not exist. */
  mustExist?: boolean;
}

const MAX_SYMLINK_HOPS = 40;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Real path of `p` even when it does not exist yet: the nearest existing ancestor is realpath'd and the
 * rest appended. Dangling symlinks are followed by hand, so a link to a missing target outside is caught.
 */
async function realpathLoose(p: string, hops = 0): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realpathLoose(parent, hops);
  const here = path.join(realParent, path.basename(p));
  let target: string | undefined;
  try {
    if ((await fs.lstat(here)).isSymbolicLink()) target = await fs.readlink(here);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  if (target === undefined) return here;
  if (hops >= MAX_SYMLINK_HOPS) throw new Error(`Too many levels of symbolic links: ${p}`);
  return realpathLoose(path.resolve(realParent, target), hops + 1);
}

/** Whether the real path `real` is the real workspace `root` or below it. */
export function isInside(root: string, real: string): boolean {
  if (real === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return real.startsWith(prefix);
}

/** Real path of an existing workspace directory (clear error when it is missing). */
export async function realWorkspace(workspace: string): Promise<string> {
  try {
    return await fs.realpath(workspace);
  } catch (err) {
    if (isMissing(err)) throw new Error(`The run's workspace ${workspace} does not exist.`);
    throw err;
  }
}

/** Resolves `userPath` (relative to the workspace, or absolute inside it) to an absolute real path. */
export async function resolveInWorkspace(
  workspace: string,
  userPath: string,
  opts: ResolveOptions = {},
): Promise<string> {
  const root = await realWorkspace(workspace);
  const requested = userPath.trim() === '' ? root : path.resolve(root, userPath);
  const real = await realpathLoose(requested);
  if (!isInside(root, real)) throw new WorkspaceEscapeError(userPath);
  if (opts.mustExist) {
    try {
      await fs.stat(real);
    } catch (err) {
      if (isMissing(err)) throw new Error(`No such file or directory: ${userPath}`);
      throw err;
    }
  }
  return real;
}

/** Path of `abs` relative to the workspace root, for display (`.` for the root itself). */
export function relativeToWorkspace(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/') || '.';
}

/** Joins a run's relative workspace to the root, refusing anything that climbs out of the root. */
export function resolveWorkspaceDir(root: string, relative: string): string {
  const dir = path.resolve(root, relative);
  if (dir !== path.resolve(root) && !dir.startsWith(path.resolve(root) + path.sep)) {
    throw new Error(`workspace "${relative}" is outside the worker's workspace root`);
  }
  return dir;
}

/** Creates the workspace directory (mkdir -p) and returns its real path. */
export async function ensureWorkspace(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  return fs.realpath(dir);
}
