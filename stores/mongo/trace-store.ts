// TraceStore on MongoDB: one document per span, trees built on read.
import type { Collection, MongoClient } from 'mongodb';
import { SpanInput, isId, parseRecord, type Span, type Trace } from '../records';
import { buildTrace } from '../trace-tree';
import type { TraceStore } from '../types';
import { STORE_FIELDS, storeCollection, upsertRacing, type MongoStoreOptions } from './collections';

type SpanDoc = Span & { tenant: string };

/** Spans in MongoDB (collection `spans`). */
export class MongoTraceStore implements TraceStore {
  private readonly spans: Collection<SpanDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.spans = storeCollection(client, opts, 'spans');
  }

  /** Creates the indexes the writes and queries rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.spans.createIndex({ tenant: 1, spanId: 1 }, { unique: true });
    await this.spans.createIndex({ tenant: 1, traceId: 1 });
  }

  async recordSpan(input: SpanInput): Promise<void> {
    const { tenant, spanId, ...fields } = parseRecord(SpanInput, input);
    // A `running` write only matches a running span; against a finished one its upsert collides on the
    // unique index and is dropped, so a retried start never reopens a finished span.
    const filter = fields.status === 'running' ? { tenant, spanId, status: 'running' as const } : { tenant, spanId };
    await upsertRacing(() => this.spans.updateOne(filter, { $set: fields }, { upsert: true }));
  }

  async getTrace(tenant: string, traceId: string): Promise<Trace | undefined> {
    if (!isId(tenant) || !isId(traceId)) return undefined;
    const spans = await this.spans.find({ tenant, traceId }, { projection: STORE_FIELDS }).toArray();
    return spans.length ? buildTrace(traceId, spans) : undefined;
  }
}
