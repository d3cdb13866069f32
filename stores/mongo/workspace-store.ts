// WorkspaceStore on MongoDB: one manifest document per generation of a workspace (collection `workspaces`; older ones
// kept as small stubs), a commit being the insert of the next generation under a unique index, and file contents as
// chunked documents (collection `workspace_blobs`): plain inserts, finds and deletes, no GridFS, no transactions. (A
// filtered replaceOne as the compare-and-swap lost concurrent commits on FerretDB 1.24; a unique index refuses the
// second insert everywhere.)
import type { Binary, Collection, MongoClient } from 'mongodb';
import { optionalPackage } from '../../common/optional-package';
import { randomUUID } from 'node:crypto';
import { RecordId, isId } from '../records';
import type { WorkspaceStore } from '../types';
import {
  applyWorkspaceChanges,
  unreferencedBlobs,
  WorkspaceQuotaExceededError,
  type AppliedChanges,
  type WorkspaceChange,
  type WorkspaceFile,
  type WorkspaceManifest,
  type WorkspaceQuota,
} from '../workspace-files';
import { isDuplicateKeyError, storeCollection, type MongoStoreOptions } from './collections';

interface ManifestDoc {
  tenant: string;
  workspace: string;
  generation: number;
  bytes: number;
  files: WorkspaceFile[];
  updatedAt: number;
  /** An older generation, kept without its files so its generation can never be inserted again. */
  superseded?: true;
}

interface BlobChunkDoc {
  tenant: string;
  workspace: string;
  blob: string;
  /** This chunk's index, from 0. */
  n: number;
  /** How many chunks the blob has (a blob missing any reads as gone). */
  chunks: number;
  data: Binary;
}

/** Bytes per chunk document, far below the 16 MB document limit. */
const CHUNK_BYTES = 1024 * 1024;
/** Commits that lose the compare-and-swap read the manifest again; this many losses in a row is an error. */
const MAX_COMMIT_ATTEMPTS = 50;

/** Workspaces in MongoDB (collections `workspaces` and `workspace_blobs`). */
export class MongoWorkspaceStore implements WorkspaceStore {
  private readonly manifests: Collection<ManifestDoc>;
  private readonly blobs: Collection<BlobChunkDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.manifests = storeCollection(client, opts, 'workspaces');
    this.blobs = storeCollection(client, opts, 'workspace_blobs');
  }

  /** Creates the indexes the reads and the commits rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.manifests.createIndex({ tenant: 1, workspace: 1, generation: 1 }, { unique: true });
    await this.blobs.createIndex({ tenant: 1, workspace: 1, blob: 1, n: 1 }, { unique: true });
  }

  async generation(tenant: string, workspace: string): Promise<number> {
    if (!isId(tenant) || !isId(workspace)) return 0;
    const doc = await this.manifests.findOne(
      { tenant, workspace },
      { projection: { _id: 0, generation: 1 }, sort: { generation: -1 } },
    );
    return doc?.generation ?? 0;
  }

  async manifest(tenant: string, workspace: string): Promise<WorkspaceManifest> {
    if (!isId(tenant) || !isId(workspace)) return { generation: 0, files: [], bytes: 0 };
    return manifestOf(await this.latest(tenant, workspace));
  }

  async putBlob(tenant: string, workspace: string, content: Uint8Array): Promise<string> {
    RecordId.parse(tenant);
    RecordId.parse(workspace);
    const blob = randomUUID();
    const chunks = Math.max(1, Math.ceil(content.byteLength / CHUNK_BYTES));
    const docs: BlobChunkDoc[] = [];
    for (let n = 0; n < chunks; n++) {
      const data = new (optionalPackage<typeof import('mongodb')>('mongodb', 'The MongoDB stores').Binary)(
        Buffer.from(content.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES)),
      );
      docs.push({ tenant, workspace, blob, n, chunks, data });
    }
    // A few chunks per insert: one insert of a whole large file would be one very large request.
    for (let i = 0; i < docs.length; i += 8) await this.blobs.insertMany(docs.slice(i, i + 8), { ordered: true });
    return blob;
  }

  async getBlob(tenant: string, workspace: string, blob: string): Promise<Uint8Array | undefined> {
    return (await this.getBlobs(tenant, workspace, [blob])).get(blob);
  }

  async getBlobs(tenant: string, workspace: string, blobs: string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const ids = blobs.filter(isId);
    if (!isId(tenant) || !isId(workspace) || !ids.length) return found;
    // One query for all of them: FerretDB answers each query with a scan, so a query per file would be slow.
    const chunks = await this.blobs
      .find({ tenant, workspace, blob: { $in: ids } }, { projection: { _id: 0 } })
      .toArray();
    const byBlob = new Map<string, BlobChunkDoc[]>();
    for (const chunk of chunks) byBlob.set(chunk.blob, [...(byBlob.get(chunk.blob) ?? []), chunk]);
    for (const [blob, parts] of byBlob) {
      if (parts.length !== parts[0].chunks) continue;
      parts.sort((x, y) => x.n - y.n);
      found.set(blob, Buffer.concat(parts.map((c) => c.data.buffer)));
    }
    return found;
  }

  async commit(
    tenant: string,
    workspace: string,
    changes: WorkspaceChange[],
    quota?: WorkspaceQuota,
  ): Promise<WorkspaceManifest> {
    RecordId.parse(tenant);
    RecordId.parse(workspace);
    for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
      const current = manifestOf(await this.latest(tenant, workspace));
      let applied: AppliedChanges;
      try {
        applied = applyWorkspaceChanges(current.files, changes, quota);
      } catch (err) {
        if (err instanceof WorkspaceQuotaExceededError)
          await this.deleteBlobs(tenant, workspace, unreferencedBlobs(current.files, changes));
        throw err;
      }
      if (!applied.changed) return current;
      const next: ManifestDoc = {
        tenant,
        workspace,
        generation: current.generation + 1,
        bytes: applied.bytes,
        files: applied.files,
        updatedAt: Date.now(),
      };
      if (await this.insertNext(next)) {
        // Older generations lose their files but stay, as stubs: were one deleted, a commit that read it (a slow one)
        // could insert the generation after it again, and its changes would be lost behind the newest.
        await this.manifests.updateMany(
          { tenant, workspace, generation: { $lt: next.generation }, superseded: { $ne: true } },
          { $set: { files: [], bytes: 0, superseded: true } },
        );
        await this.deleteBlobs(tenant, workspace, applied.released);
        return manifestOf(next);
      }
      // Another commit came first: apply these changes on top of its files instead.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * (attempt + 1)));
    }
    throw new Error(`workspace ${workspace}: ${MAX_COMMIT_ATTEMPTS} concurrent commits in a row came first`);
  }

  async remove(tenant: string, workspace: string): Promise<void> {
    if (!isId(tenant) || !isId(workspace)) return;
    await this.manifests.deleteOne({ tenant, workspace });
    await this.blobs.deleteMany({ tenant, workspace });
  }

  /** The newest generation's document (never a stub: read again if a read raced a commit that far). */
  private async latest(tenant: string, workspace: string): Promise<ManifestDoc | null> {
    for (let attempt = 1; ; attempt++) {
      const doc = await this.manifests.findOne({ tenant, workspace }, { sort: { generation: -1 } });
      if (!doc?.superseded) return doc;
      if (attempt >= 5)
        throw new Error(`workspace ${workspace}: its newest generation ${doc.generation} reads as superseded`);
    }
  }

  /** Stores the next generation unless another commit stored it first (the unique index refuses the second). */
  private async insertNext(next: ManifestDoc): Promise<boolean> {
    try {
      await this.manifests.insertOne({ ...next });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  private async deleteBlobs(tenant: string, workspace: string, blobs: string[]): Promise<void> {
    if (blobs.length) await this.blobs.deleteMany({ tenant, workspace, blob: { $in: blobs } });
  }
}

function manifestOf(doc: Pick<ManifestDoc, 'generation' | 'files' | 'bytes'> | null): WorkspaceManifest {
  if (!doc) return { generation: 0, files: [], bytes: 0 };
  return { generation: doc.generation, files: doc.files.map((f) => ({ ...f })), bytes: doc.bytes };
}
