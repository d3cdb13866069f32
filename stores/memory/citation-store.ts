// CitationStore in memory: citations kept in the order they were first added.
import { CitationInput, RecordId, isId, parseRecord, type Citation } from '../records';
import type { CitationStore } from '../types';
import { TenantMap } from './tenant-map';

/** Citations in Maps; lost when the process exits. */
export class MemoryCitationStore implements CitationStore {
  /** Keyed by runId, toolCallId and url; a Map keeps insertion order. */
  private readonly citations = new TenantMap<Citation>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async addCitations(tenant: string, input: CitationInput): Promise<void> {
    RecordId.parse(tenant);
    const { runId, stepId, toolCallId, sources } = parseRecord(CitationInput, input);
    const createdAt = Date.now();
    for (const source of sources) {
      const key = JSON.stringify([runId, toolCallId, source.url]);
      if (!this.citations.has(tenant, key))
        this.citations.set(tenant, key, { runId, stepId, toolCallId, ...source, createdAt });
    }
  }

  async listCitations(tenant: string, runId: string): Promise<Citation[]> {
    if (!isId(tenant) || !isId(runId)) return [];
    return this.citations.filter(tenant, (c) => c.runId === runId);
  }
}
