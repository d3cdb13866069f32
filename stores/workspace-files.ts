// What the workspace stores share: a workspace's file list (its manifest), the changes a worker commits, the quota
// and its error, and the one function that applies changes to a manifest, so memory and MongoDB agree exactly.

/** One file of a stored workspace. */
export interface WorkspaceFile {
  /** `/`-separated path relative to the workspace's root directory. */
  path: string;
  size: number;
  /** SHA-256 of the content, hex: a worker compares it with its local copy instead of downloading. */
  hash: string;
  /** The stored content's id (from `putBlob`); a blob belongs to exactly one manifest entry. */
  blob: string;
  /** Whether the file has its executable bit set. */
  executable?: boolean;
}

/** A workspace's files at one generation (generation 0, no files: a workspace the store has never seen). */
export interface WorkspaceManifest {
  generation: number;
  files: WorkspaceFile[];
  /** Sum of the files' sizes. */
  bytes: number;
}

/** One file written (or replaced) or deleted by a commit. */
export type WorkspaceChange = WorkspaceFile | { path: string; deleted: true };

/** The most a workspace may hold. */
export interface WorkspaceQuota {
  maxBytes: number;
  maxFiles: number;
}

/** Default {@link WorkspaceQuota}: 256 MiB in 10,000 files per run. */
export const DEFAULT_WORKSPACE_QUOTA: WorkspaceQuota = { maxBytes: 256 * 1024 * 1024, maxFiles: 10_000 };

/** Thrown by a commit that would take a workspace past its quota; the workspace stays as it was. */
export class WorkspaceQuotaExceededError extends Error {
  override readonly name = 'WorkspaceQuotaExceededError';
  constructor(
    readonly bytes: number,
    readonly files: number,
    readonly quota: WorkspaceQuota,
  ) {
    super(
      `workspace quota exceeded: the run's workspace would hold ${formatBytes(bytes)} in ${files} files, over its ` +
        `limit of ${formatBytes(quota.maxBytes)} and ${quota.maxFiles} files`,
    );
  }
}

/** `1.5 MiB`, `300 B`: sizes as a person reads them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/** What applying a commit's changes gives: the new files, and the blobs nothing references any more. */
export interface AppliedChanges {
  files: WorkspaceFile[];
  bytes: number;
  /** Blobs of replaced or deleted entries (safe to delete once the new manifest is stored). */
  released: string[];
  /** Whether anything changed (a commit of the same content again changes nothing). */
  changed: boolean;
}

/**
 * Applies changes on top of the current files, per file: the last commit wins. Throws
 * {@link WorkspaceQuotaExceededError} when the result is over the quota and larger (in bytes or files) than before,
 * so a workspace already over a lowered quota can still shrink.
 */
export function applyWorkspaceChanges(
  current: WorkspaceFile[],
  changes: WorkspaceChange[],
  quota?: WorkspaceQuota,
): AppliedChanges {
  const byPath = new Map(current.map((f) => [f.path, f]));
  const released: string[] = [];
  let changed = false;
  for (const change of changes) {
    const old = byPath.get(change.path);
    if ('deleted' in change) {
      if (!old) continue;
      byPath.delete(change.path);
      released.push(old.blob);
      changed = true;
      continue;
    }
    if (old?.blob === change.blob) continue;
    if (old) released.push(old.blob);
    byPath.set(change.path, { ...change });
    changed = true;
  }
  const files = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const bytes = files.reduce((sum, f) => sum + f.size, 0);
  const before = current.reduce((sum, f) => sum + f.size, 0);
  if (quota) {
    const overBytes = bytes > quota.maxBytes && bytes > before;
    const overFiles = files.length > quota.maxFiles && files.length > current.length;
    if (overBytes || overFiles) throw new WorkspaceQuotaExceededError(bytes, files.length, quota);
  }
  return { files, bytes, released, changed };
}

/** The blobs a refused commit uploaded for nothing (its changes' blobs not already in the workspace). */
export function unreferencedBlobs(current: WorkspaceFile[], changes: WorkspaceChange[]): string[] {
  const kept = new Set(current.map((f) => f.blob));
  return changes.flatMap((c) => ('deleted' in c || kept.has(c.blob) ? [] : [c.blob]));
}
