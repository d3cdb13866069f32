// CitationStore on MongoDB: one document per (run, tool call, url), listed in the order first added.
import type { Collection, MongoClient } from 'mongodb';
import { CitationInput, RecordId, isId, parseRecord, type Citation } from '../records';
import type { CitationStore } from '../types';
import { STORE_FIELDS, insertOnce, storeCollection, type MongoStoreOptions } from './collections';

/** `seq` orders citations added in the same millisecond (by this process). */
type CitationDoc = Citation & { tenant: string; seq: number };

/** Citations in MongoDB (collection `citations`). */
export class MongoCitationStore implements CitationStore {
  private readonly citations: Collection<CitationDoc>;
  private seq = 0;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.citations = storeCollection(client, opts, 'citations');
  }

  /** Creates the index the writes and queries rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.citations.createIndex({ tenant: 1, runId: 1, toolCallId: 1, url: 1 }, { unique: true });
  }

  async addCitations(tenant: string, input: CitationInput): Promise<void> {
    RecordId.parse(tenant);
    const { runId, stepId, toolCallId, sources } = parseRecord(CitationInput, input);
    const createdAt = Date.now();
    const docs = sources.map((source) => ({
      tenant,
      runId,
      stepId,
      toolCallId,
      ...source,
      createdAt,
      seq: this.seq++,
    }));
    await insertOnce(this.citations, docs);
  }

  async listCitations(tenant: string, runId: string): Promise<Citation[]> {
    if (!isId(tenant) || !isId(runId)) return [];
    return this.citations
      .find({ tenant, runId }, { projection: { ...STORE_FIELDS, seq: 0 }, sort: { createdAt: 1, seq: 1 } })
      .toArray();
  }
}
