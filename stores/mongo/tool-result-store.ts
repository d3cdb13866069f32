// ToolResultStore on MongoDB: one document per tool call, the content as a string field (a 16 MB BSON
// document is far above any tool output Agio keeps).
import type { Collection, MongoClient } from 'mongodb';
import { RecordId, ToolResultInput, isId, parseRecord } from '../records';
import { isToolResultRef, toolResultRef } from '../tool-result-ref';
import type { ToolResultStore } from '../types';
import { insertOnce, storeCollection, type MongoStoreOptions } from './collections';

interface ToolResultDoc {
  tenant: string;
  ref: string;
  runId: string;
  toolCallId: string;
  content: string;
  createdAt: number;
}

/** Tool results in MongoDB (collection `tool_results`). */
export class MongoToolResultStore implements ToolResultStore {
  private readonly results: Collection<ToolResultDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.results = storeCollection(client, opts, 'tool_results');
  }

  /** Creates the index the writes and reads rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.results.createIndex({ tenant: 1, ref: 1 }, { unique: true });
  }

  async put(tenant: string, input: ToolResultInput): Promise<string> {
    RecordId.parse(tenant);
    const { runId, toolCallId, stepId, content } = parseRecord(ToolResultInput, input);
    const ref = toolResultRef(runId, toolCallId, stepId);
    await insertOnce(this.results, [{ tenant, ref, runId, toolCallId, content, createdAt: Date.now() }]);
    return ref;
  }

  async get(tenant: string, runId: string, ref: string): Promise<string | undefined> {
    if (!isId(tenant) || !isId(runId) || !isToolResultRef(ref)) return undefined;
    const stored = await this.results.findOne({ tenant, ref, runId }, { projection: { _id: 0, content: 1 } });
    return stored?.content;
  }
}
