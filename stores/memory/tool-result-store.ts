// ToolResultStore in memory: full tool outputs by ref.
import { RecordId, ToolResultInput, isId, parseRecord } from '../records';
import { isToolResultRef, toolResultRef } from '../tool-result-ref';
import type { ToolResultStore } from '../types';
import { TenantMap } from './tenant-map';

interface StoredResult {
  runId: string;
  toolCallId: string;
  content: string;
}

/** Tool results in Maps; lost when the process exits. */
export class MemoryToolResultStore implements ToolResultStore {
  private readonly results = new TenantMap<StoredResult>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async put(tenant: string, input: ToolResultInput): Promise<string> {
    RecordId.parse(tenant);
    const result = parseRecord(ToolResultInput, input);
    const ref = toolResultRef(result.runId, result.toolCallId, result.stepId);
    if (!this.results.has(tenant, ref)) this.results.set(tenant, ref, result);
    return ref;
  }

  async get(tenant: string, runId: string, ref: string): Promise<string | undefined> {
    if (!isId(tenant) || !isId(runId) || !isToolResultRef(ref)) return undefined;
    const stored = this.results.get(tenant, ref);
    return stored?.runId === runId ? stored.content : undefined;
  }
}
