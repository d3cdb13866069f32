// What a worker remembers of its copy of one workspace: the store's generation and files it matches, and whether a
// tool that writes may have left it changed (then the next sync compares every file). Kept beside the workspaces, in
// `<workspace root>/.agio-sync/`, out of every tool's reach, so a restarted worker still knows its copies.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WorkspaceFile } from '../../stores';

/** A file as the store has it, with the local copy's mtime when the worker last saw it match. */
export interface SyncedFile extends Omit<WorkspaceFile, 'path'> {
  mtimeMs: number;
}

/** A worker's knowledge of its copy of one workspace. */
export interface SyncState {
  /** The store's generation the copy matches, apart from what a writing tool changed since (0: none yet). */
  generation: number;
  /**
   * Set while a tool that writes runs, cleared once its changes are committed: found set by a sync (the worker died
   * mid-tool, the tool was cancelled), the copy may hold changes nobody committed, and the sync compares every file.
   */
  dirty: boolean;
  /** The store's files at `generation`, by path. */
  files: Record<string, SyncedFile>;
}

/** A copy the worker knows nothing about. */
export function emptyState(): SyncState {
  return { generation: 0, dirty: false, files: {} };
}

/** The state files of a worker's copies, one per (tenant, workspace). */
export class SyncStateFiles {
  private readonly dir: string;

  constructor(workspaceRoot: string) {
    this.dir = path.join(workspaceRoot, '.agio-sync');
  }

  /** The remembered state, or an empty one. */
  async load(key: string): Promise<SyncState> {
    try {
      return JSON.parse(await fs.readFile(this.file(key), 'utf8')) as SyncState;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return emptyState();
      throw err;
    }
  }

  /** Replaces the remembered state (atomically: a crash leaves the old or the new file, never half of one). */
  async save(key: string, state: SyncState): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = this.file(key);
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(state));
    await fs.rename(tmp, file);
  }

  private file(key: string): string {
    return path.join(this.dir, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
  }
}
