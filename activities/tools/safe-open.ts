// Opens workspace files for the in-process file tools so that a check cannot be raced: the parent directory is opened
// and its real location checked through the descriptor, the file is opened under that descriptor without following a
// final symlink, and a file with more than one hard link is refused (one of them could be a file outside).
import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { isInside, realWorkspace, resolveInWorkspace, WorkspaceEscapeError } from './workspace';

/** An open workspace file or directory, its stat as opened, and its real path. */
export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
  real: string;
}

/** Where a descriptor really points (the kernel's answer, whatever was swapped in after a check). */
async function fdPath(handle: FileHandle): Promise<string> {
  return fs.readlink(`/proc/self/fd/${handle.fd}`);
}

/** Opens a directory and refuses it unless its real location is inside the workspace root `root`. */
async function openDirInside(root: string, dir: string, userPath: string): Promise<FileHandle> {
  const handle = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  if (!isInside(root, await fdPath(handle))) {
    await handle.close();
    throw new WorkspaceEscapeError(userPath);
  }
  return handle;
}

/**
 * Opens `real` (a path resolveInWorkspace returned) with `flags`: through its parent's checked descriptor, never
 * following a final symlink, refusing a hard-linked regular file. Exported for the tests that swap links in between.
 */
export async function openResolved(root: string, real: string, userPath: string, flags: number): Promise<OpenedFile> {
  if (real === root) {
    const handle = await openDirInside(root, real, userPath);
    return { handle, stat: await handle.stat(), real };
  }
  const dir = await openDirInside(root, path.dirname(real), userPath);
  let handle: FileHandle;
  try {
    handle = await fs.open(`/proc/self/fd/${dir.fd}/${path.basename(real)}`, flags | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new Error(`"${userPath}" became a symbolic link while it was being opened; refused.`);
    throw err;
  } finally {
    await dir.close();
  }
  const stat = await handle.stat();
  if (stat.isFile() && stat.nlink > 1) {
    await handle.close();
    throw new Error(
      `"${userPath}" has ${stat.nlink} hard links; file tools refuse hard-linked files (another link could be a file outside the workspace).`,
    );
  }
  return { handle, stat, real };
}

/** Options of {@link openInWorkspace}. */
export interface OpenOptions {
  /** Open for writing (`write`), for reading and writing (`edit`), or for reading (default). */
  mode?: 'read' | 'write' | 'edit';
  /** Create the file (and its parent directories) when missing. */
  create?: boolean;
}

/** Opens a workspace file or directory named by the model, safely (see the file's header). */
export async function openInWorkspace(
  workspace: string,
  userPath: string,
  opts: OpenOptions = {},
): Promise<OpenedFile> {
  const root = await realWorkspace(workspace);
  const real = await resolveInWorkspace(workspace, userPath, { mustExist: !opts.create });
  if (opts.create) {
    await fs.mkdir(path.dirname(real), { recursive: true });
    // A directory swapped for a link meanwhile is caught by the parent's descriptor check in openResolved.
  }
  const access =
    opts.mode === 'write' ? constants.O_WRONLY : opts.mode === 'edit' ? constants.O_RDWR : constants.O_RDONLY;
  return openResolved(root, real, userPath, access | (opts.create ? constants.O_CREAT : 0));
}

/** Replaces an open file's content with `text` (truncate, then write from offset 0 until every byte is written). */
export async function replaceContent(handle: FileHandle, text: string): Promise<number> {
  const buf = Buffer.from(text, 'utf8');
  await handle.truncate(0);
  for (let off = 0; off < buf.length;) {
    const { bytesWritten } = await handle.write(buf, off, buf.length - off, off);
    off += bytesWritten;
  }
  return buf.length;
}
