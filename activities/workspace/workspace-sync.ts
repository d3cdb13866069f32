// Keeps runs' workspaces in the store so that any worker can run a run's next tool (docs/ARCHITECTURE.md, "Stores"):
// before a tool, the worker brings its local copy up to date (one generation lookup when it already is); after a tool
// that writes, it commits the files that changed (by size, mtime and mode, then hash), deletions included.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  applyWorkspaceChanges,
  WorkspaceQuotaExceededError,
  type WorkspaceChange,
  type WorkspaceFile,
  type WorkspaceQuota,
  type WorkspaceStore,
} from '../../stores';
import { ensureWorkspace, resolveWorkspaceDir } from '../tools/workspace';
import { deleteLocalFile, hashBytes, scanFiles, writeLocalFile, type LocalFile } from './local-files';
import { workspaceTree, type WorkspaceSession } from './session';
import { emptyState, SyncStateFiles, type SyncedFile, type SyncState } from './sync-state';

export { finishWorkspace, workspaceTree, type WorkspaceSession } from './session';

/** A file's content was replaced by a commit between reading the manifest and downloading: read the manifest again. */
class BlobGone extends Error {}

const MAX_PULL_ATTEMPTS = 5;
/** A download batch ends at this many bytes or files (whichever comes first; a larger file goes alone). */
const BATCH_BYTES = 8 * 1024 * 1024;
const BATCH_FILES = 256;
const UPLOADS_AT_ONCE = 4;

/** One worker's side of workspace syncing (one per worker: it serialises the syncs of a workspace in the process). */
export class WorkspaceSync {
  private readonly stateFiles: SyncStateFiles;
  private readonly states = new Map<string, SyncState>();
  private readonly writers = new Map<string, number>();
  private readonly locks = new Map<string, Promise<void>>();

  constructor(
    private readonly store: WorkspaceStore,
    private readonly workspaceRoot: string,
    private readonly quota: WorkspaceQuota,
  ) {
    this.stateFiles = new SyncStateFiles(workspaceRoot);
  }

  /** Brings the local copy holding `workspace` up to date; a tool that writes gets a session to finish. */
  async begin(tenant: string, workspace: string, writes: true): Promise<WorkspaceSession>;
  async begin(tenant: string, workspace: string, writes: boolean): Promise<WorkspaceSession | undefined>;
  async begin(tenant: string, workspace: string, writes: boolean): Promise<WorkspaceSession | undefined> {
    const tree = workspaceTree(workspace);
    const key = JSON.stringify([tenant, tree]);
    const dir = await ensureWorkspace(resolveWorkspaceDir(this.workspaceRoot, tree));
    const copy = { key, tenant, tree, dir };
    await this.locked(key, async () => {
      const state = await this.pull(copy);
      if (!writes) return;
      // Files put in the directory before the store knew the workspace (seeded by hand) are committed first, so a
      // refused commit of the tool's changes can never undo them.
      const seeded = state.generation === 0 && !state.dirty ? await this.commitChanges(copy, state) : state;
      this.writers.set(key, (this.writers.get(key) ?? 0) + 1);
      await this.save(key, { ...seeded, dirty: true });
    });
    if (!writes) return undefined;
    let open = true;
    const release = () => {
      if (!open) return false;
      open = false;
      this.writers.set(key, (this.writers.get(key) ?? 1) - 1);
      return true;
    };
    return {
      finish: () =>
        this.locked(key, async () => {
          if (!release()) return;
          const state = await this.state(key);
          const kept = await this.commitChanges(copy, state, true);
          await this.save(key, { ...kept, dirty: (this.writers.get(key) ?? 0) > 0 });
        }),
      abandon: () => void release(),
    };
  }

  /** Makes the copy match the store's newest generation (unless it already does) and returns what it now knows. */
  private async pull(copy: Copy): Promise<SyncState> {
    const state = await this.state(copy.key);
    const generation = await this.store.generation(copy.tenant, copy.tree);
    // A tool that wrote here and did not finish: compare every file, unless another one is still writing.
    const full = state.dirty && !this.writers.get(copy.key);
    if (generation === 0) {
      // The store never saw this workspace: what the directory holds is all there is.
      if (state.generation === 0 && !full) return state;
      return this.save(copy.key, emptyState());
    }
    if (generation === state.generation && !full) return state;
    for (let attempt = 1; ; attempt++) {
      const manifest = await this.store.manifest(copy.tenant, copy.tree);
      try {
        const files = full
          ? await this.reconcile(copy, state, manifest.files)
          : await this.apply(copy, state, manifest.files);
        return this.save(copy.key, { generation: manifest.generation, dirty: state.dirty && !full, files });
      } catch (err) {
        if (!(err instanceof BlobGone) || attempt >= MAX_PULL_ATTEMPTS) throw err;
      }
    }
  }

  /** Applies what changed in the store since `state` (the files the copy knows it matches), file by file. */
  private async apply(copy: Copy, state: SyncState, files: WorkspaceFile[]): Promise<Record<string, SyncedFile>> {
    const next: Record<string, SyncedFile> = {};
    const wanted: WorkspaceFile[] = [];
    for (const file of files) {
      const had = state.files[file.path];
      if (had && had.hash === file.hash && !!had.executable === !!file.executable)
        next[file.path] = synced(file, had.mtimeMs);
      else wanted.push(file);
    }
    await this.download(copy, wanted, next);
    const stored = new Set(files.map((f) => f.path));
    for (const rel of Object.keys(state.files)) if (!stored.has(rel)) await deleteLocalFile(copy.dir, rel);
    return next;
  }

  /** Compares every local file with the store's and fixes those that differ; files the store lacks are deleted. */
  private async reconcile(copy: Copy, state: SyncState, files: WorkspaceFile[]): Promise<Record<string, SyncedFile>> {
    const local = await scanFiles(copy.dir, state.files);
    const next: Record<string, SyncedFile> = {};
    const wanted: WorkspaceFile[] = [];
    for (const file of files) {
      const have = local.get(file.path);
      if (have && have.hash === file.hash && have.executable === !!file.executable)
        next[file.path] = synced(file, have.mtimeMs);
      else wanted.push(file);
    }
    await this.download(copy, wanted, next);
    const stored = new Set(files.map((f) => f.path));
    for (const rel of local.keys()) if (!stored.has(rel)) await deleteLocalFile(copy.dir, rel);
    return next;
  }

  /** Downloads files in batches (a few MiB or a few hundred files per store read) and writes them into the copy. */
  private async download(copy: Copy, files: WorkspaceFile[], into: Record<string, SyncedFile>): Promise<void> {
    for (let start = 0; start < files.length;) {
      let end = start;
      for (
        let bytes = 0;
        end < files.length && (end === start || (bytes < BATCH_BYTES && end - start < BATCH_FILES));
        end++
      )
        bytes += files[end].size;
      const batch = files.slice(start, end);
      const contents = await this.store.getBlobs(
        copy.tenant,
        copy.tree,
        batch.map((f) => f.blob),
      );
      for (const file of batch) {
        const content = contents.get(file.blob);
        if (!content) throw new BlobGone();
        const written = await writeLocalFile(copy.dir, file.path, content, !!file.executable);
        if (written) into[file.path] = synced(file, written.mtimeMs);
      }
      start = end;
    }
  }

  /**
   * Commits the files that differ from what `state` says the store has. With `undo`, a commit refused for the quota
   * first puts the changed files back as the store has them; the error then goes to the tool's caller.
   */
  private async commitChanges(copy: Copy, state: SyncState, undo = false): Promise<SyncState> {
    const local = await scanFiles(copy.dir, state.files);
    const changed = [...local].filter(([rel, f]) => differs(state.files[rel], f)).map(([rel]) => rel);
    const deleted = Object.keys(state.files).filter((rel) => !local.has(rel));
    if (!changed.length && !deleted.length) return state;
    const deletions: WorkspaceChange[] = deleted.map((rel) => ({ path: rel, deleted: true }));
    try {
      // Checked here first, so that a refused commit uploads nothing.
      const current = Object.entries(state.files).map(([rel, f]) => ({ path: rel, ...f }));
      const planned = changed.map((rel) => ({ path: rel, ...local.get(rel)!, blob: `local:${rel}` }));
      applyWorkspaceChanges(current, [...planned, ...deletions], this.quota);
      // A few uploads at a time: each is a round trip to the store.
      const writes: (WorkspaceFile & { mtimeMs: number })[] = [];
      const queue = [...changed];
      const uploader = async () => {
        for (let rel = queue.shift(); rel !== undefined; rel = queue.shift())
          writes.push(await this.upload(copy, rel, local.get(rel)!));
      };
      await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, uploader));
      const manifest = await this.store.commit(copy.tenant, copy.tree, [...writes, ...deletions], this.quota);
      const files = { ...state.files };
      for (const rel of deleted) delete files[rel];
      for (const { path: rel, mtimeMs, ...file } of writes) files[rel] = { ...file, mtimeMs };
      // Only this commit since `state`: the copy is at the new generation. Otherwise the next pull fetches the rest.
      const generation = manifest.generation === state.generation + 1 ? manifest.generation : state.generation;
      return { ...state, generation, files };
    } catch (err) {
      if (undo && err instanceof WorkspaceQuotaExceededError) await this.undo(copy, [...changed, ...deleted]);
      throw err;
    }
  }

  private async upload(copy: Copy, rel: string, seen: LocalFile): Promise<WorkspaceFile & { mtimeMs: number }> {
    const abs = path.join(copy.dir, rel);
    const content = await fs.readFile(abs);
    const blob = await this.store.putBlob(copy.tenant, copy.tree, content);
    const { mtimeMs } = await fs.lstat(abs);
    const executable = seen.executable ? { executable: true } : {};
    return { path: rel, size: content.length, hash: hashBytes(content), blob, ...executable, mtimeMs };
  }

  /** Puts the given files back as the store has them now (a refused commit's changes, undone). */
  private async undo(copy: Copy, paths: string[]): Promise<void> {
    const state = await this.state(copy.key);
    const manifest = await this.store.manifest(copy.tenant, copy.tree);
    const stored = new Map(manifest.files.map((f) => [f.path, f]));
    const files = { ...state.files };
    for (const rel of paths) {
      const file = stored.get(rel);
      delete files[rel];
      if (file) await this.download(copy, [file], files);
      else await deleteLocalFile(copy.dir, rel);
    }
    await this.save(copy.key, { ...state, dirty: (this.writers.get(copy.key) ?? 0) > 0, files });
  }

  private async state(key: string): Promise<SyncState> {
    const known = this.states.get(key);
    if (known) return known;
    const loaded = await this.stateFiles.load(key);
    this.states.set(key, loaded);
    return loaded;
  }

  private async save(key: string, state: SyncState): Promise<SyncState> {
    await this.stateFiles.save(key, state);
    this.states.set(key, state);
    return state;
  }

  /** Runs `fn` after every earlier call for the same key has settled. */
  private locked(key: string, fn: () => Promise<void>): Promise<void> {
    const run = (this.locks.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    void tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return run;
  }
}

interface Copy {
  key: string;
  tenant: string;
  tree: string;
  /** Real path of the local copy. */
  dir: string;
}

function synced(file: WorkspaceFile, mtimeMs: number): SyncedFile {
  return {
    size: file.size,
    hash: file.hash,
    blob: file.blob,
    ...(file.executable ? { executable: true } : {}),
    mtimeMs,
  };
}

function differs(known: SyncedFile | undefined, local: LocalFile): boolean {
  return !known || known.hash !== local.hash || !!known.executable !== local.executable;
}
