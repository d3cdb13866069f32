// EventLogStore on MongoDB: one document per event, unique by (tenant, rootRunId, offset), read a page at a
// time by offset. The event is kept as its JSON text: returned exactly as written (nulls, any key names).
import type { Collection, MongoClient } from 'mongodb';
import { AgioEvent, type WireEvent } from '../../common';
import { RecordId, isId } from '../records';
import type { EventLogStore } from '../types';
import { insertOnce, storeCollection, type MongoStoreOptions } from './collections';

interface EventDoc {
  tenant: string;
  rootRunId: string;
  offset: number;
  json: string;
}

/** Event logs in MongoDB (collection `events`). */
export class MongoEventLogStore implements EventLogStore {
  private readonly events: Collection<EventDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.events = storeCollection(client, opts, 'events');
  }

  /** Creates the index the writes and reads rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.events.createIndex({ tenant: 1, rootRunId: 1, offset: 1 }, { unique: true });
  }

  async append(tenant: string, rootRunId: string, events: WireEvent[]): Promise<void> {
    RecordId.parse(tenant);
    RecordId.parse(rootRunId);
    const docs = events.map((e) => {
      const event = AgioEvent.parse(e);
      return { tenant, rootRunId, offset: event.offset, json: JSON.stringify(event) };
    });
    await insertOnce(this.events, docs);
  }

  async read(tenant: string, rootRunId: string, after: number, limit: number): Promise<WireEvent[]> {
    if (!isId(tenant) || !isId(rootRunId) || !Number.isFinite(after) || limit <= 0) return [];
    const docs = await this.events
      .find({ tenant, rootRunId, offset: { $gt: after } }, { projection: { _id: 0, json: 1 } })
      .sort({ offset: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => JSON.parse(d.json) as WireEvent);
  }
}
