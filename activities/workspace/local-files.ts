// A worker's copy of a workspace on disk: listing its regular files (hashing only those whose size, mtime or mode
// changed since they were last seen), and writing or deleting a file without following a symlink out of it.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { isInside } from '../tools/workspace';

/** A regular file of the local copy. */
export interface LocalFile {
  size: number;
  mtimeMs: number;
  executable: boolean;
  hash: string;
}

/** What a previous scan or sync knew of a file: reused when size, mtime and mode are unchanged. */
export interface KnownFile {
  size: number;
  mtimeMs: number;
  executable?: boolean;
  hash: string;
}

/** SHA-256 of a file, hex. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** SHA-256 of bytes, hex. */
export function hashBytes(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The regular files under `root` by `/`-separated relative path. Symlinks, sockets and the like are not part of a
 * stored workspace and are left out (a symlinked directory is not entered); empty directories are not kept either.
 */
export async function scanFiles(root: string, known: Record<string, KnownFile>): Promise<Map<string, LocalFile>> {
  const files = new Map<string, LocalFile>();
  const visit = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(abs, relPath);
      else if (entry.isFile()) files.set(relPath, await describe(abs, known[relPath]));
    }
  };
  await visit(root, '');
  return files;
}

async function describe(abs: string, known: KnownFile | undefined): Promise<LocalFile> {
  const stat = await fs.lstat(abs);
  const executable = (stat.mode & 0o100) !== 0;
  const same =
    known && known.size === stat.size && known.mtimeMs === stat.mtimeMs && (known.executable ?? false) === executable;
  return { size: stat.size, mtimeMs: stat.mtimeMs, executable, hash: same ? known.hash : await hashFile(abs) };
}

/** Checks a stored path: relative, `/`-separated, no `.`/`..` or empty segments (anything else is never written). */
export function isSafeRelativePath(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || rel.includes('\\') || rel.includes('\0')) return false;
  return rel.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/** The absolute path of `rel` under `root` if its parent directories resolve inside `root` (no symlink out). */
async function placeInside(root: string, rel: string): Promise<string | undefined> {
  if (!isSafeRelativePath(rel)) return undefined;
  const abs = path.join(root, rel);
  let parent = path.dirname(abs);
  // The nearest existing ancestor must really be inside (a symlinked directory could point anywhere).
  for (;;) {
    try {
      const real = await fs.realpath(parent);
      return isInside(root, real) ? abs : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      parent = path.dirname(parent);
    }
  }
}

/** Writes a file of the workspace (replacing a directory or link in its way) and returns its stat as known now. */
export async function writeLocalFile(
  root: string,
  rel: string,
  content: Uint8Array,
  executable: boolean,
): Promise<KnownFile | undefined> {
  const abs = await placeInside(root, rel);
  if (!abs) return undefined;
  await fs.mkdir(path.dirname(abs), { recursive: true });
  const tmp = `${abs}.agio-sync-${process.pid}-${Date.now()}`;
  await fs.writeFile(tmp, content, { mode: executable ? 0o755 : 0o644 });
  await fs.chmod(tmp, executable ? 0o755 : 0o644);
  const existing = await fs.lstat(abs).catch(() => undefined);
  if (existing?.isDirectory()) await fs.rm(abs, { recursive: true, force: true });
  await fs.rename(tmp, abs);
  const stat = await fs.lstat(abs);
  return { size: stat.size, mtimeMs: stat.mtimeMs, executable, hash: hashBytes(content) };
}

/** Deletes a regular file of the workspace (never a link's target) and the directories it leaves empty. */
export async function deleteLocalFile(root: string, rel: string): Promise<void> {
  const abs = await placeInside(root, rel);
  if (!abs) return;
  const stat = await fs.lstat(abs).catch(() => undefined);
  if (!stat?.isFile()) return;
  await fs.rm(abs, { force: true });
  for (let dir = path.dirname(abs); dir !== root && isInside(root, dir); dir = path.dirname(dir)) {
    try {
      await fs.rmdir(dir);
    } catch {
      break; // not empty (or gone): stop climbing
    }
  }
}
