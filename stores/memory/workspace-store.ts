// WorkspaceStore in memory: manifests and blobs in Maps (one process: the embedded default and tests).
import { randomUUID } from 'node:crypto';
import { RecordId, isId } from '../records';
import type { WorkspaceStore } from '../types';
import {
  applyWorkspaceChanges,
  unreferencedBlobs,
  WorkspaceQuotaExceededError,
  type WorkspaceChange,
  type WorkspaceManifest,
  type WorkspaceQuota,
} from '../workspace-files';

interface StoredWorkspace {
  manifest: WorkspaceManifest;
  blobs: Map<string, Uint8Array>;
}

/** Workspaces in Maps; lost when the process exits. */
export class MemoryWorkspaceStore implements WorkspaceStore {
  // Keyed by [tenant, workspace]; blobs are copied once in and once out (they can be large).
  private readonly data = new Map<string, StoredWorkspace>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async generation(tenant: string, workspace: string): Promise<number> {
    return this.find(tenant, workspace)?.manifest.generation ?? 0;
  }

  async manifest(tenant: string, workspace: string): Promise<WorkspaceManifest> {
    const stored = this.find(tenant, workspace);
    return stored ? structuredClone(stored.manifest) : { generation: 0, files: [], bytes: 0 };
  }

  async putBlob(tenant: string, workspace: string, content: Uint8Array): Promise<string> {
    const blob = randomUUID();
    this.open(tenant, workspace).blobs.set(blob, Uint8Array.from(content));
    return blob;
  }

  async getBlob(tenant: string, workspace: string, blob: string): Promise<Uint8Array | undefined> {
    const content = this.find(tenant, workspace)?.blobs.get(blob);
    return content && Uint8Array.from(content);
  }

  async getBlobs(tenant: string, workspace: string, blobs: string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const blob of blobs) {
      const content = await this.getBlob(tenant, workspace, blob);
      if (content) found.set(blob, content);
    }
    return found;
  }

  async commit(
    tenant: string,
    workspace: string,
    changes: WorkspaceChange[],
    quota?: WorkspaceQuota,
  ): Promise<WorkspaceManifest> {
    const stored = this.open(tenant, workspace);
    const current = stored.manifest;
    try {
      const applied = applyWorkspaceChanges(current.files, changes, quota);
      if (applied.changed) {
        stored.manifest = { generation: current.generation + 1, files: applied.files, bytes: applied.bytes };
        for (const blob of applied.released) stored.blobs.delete(blob);
      }
    } catch (err) {
      if (err instanceof WorkspaceQuotaExceededError)
        for (const blob of unreferencedBlobs(current.files, changes)) stored.blobs.delete(blob);
      throw err;
    }
    return structuredClone(stored.manifest);
  }

  async remove(tenant: string, workspace: string): Promise<void> {
    if (isId(tenant) && isId(workspace)) this.data.delete(key(tenant, workspace));
  }

  private find(tenant: string, workspace: string): StoredWorkspace | undefined {
    if (!isId(tenant) || !isId(workspace)) return undefined;
    return this.data.get(key(tenant, workspace));
  }

  private open(tenant: string, workspace: string): StoredWorkspace {
    RecordId.parse(tenant);
    RecordId.parse(workspace);
    let stored = this.find(tenant, workspace);
    if (!stored) {
      stored = { manifest: { generation: 0, files: [], bytes: 0 }, blobs: new Map() };
      this.data.set(key(tenant, workspace), stored);
    }
    return stored;
  }
}

function key(tenant: string, workspace: string): string {
  return JSON.stringify([tenant, workspace]);
}
