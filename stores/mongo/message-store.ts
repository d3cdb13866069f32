// MessageStore on MongoDB: one document per version of a position of a run's conversation, unique by (tenant, runId,
// index, version), inserted once and never updated: a read takes each position's newest version. (Conditional
// overwrites lose races on FerretDB 1.24, whose updates are not atomic; inserts under a unique index are.) Versions a
// newer one replaced are deleted after the write. The message is kept as its JSON text: returned exactly as written.
import type { Collection, MongoClient } from 'mongodb';
import type { ChatMessage } from '../../common';
import { RecordId, isId } from '../records';
import type { MessageStore, StoredMessage } from '../types';
import { isDuplicateKeyError, storeCollection, type MongoStoreOptions } from './collections';

interface MessageDoc {
  tenant: string;
  runId: string;
  index: number;
  version: number;
  json: string;
}

/** Runs' conversations in MongoDB (collection `messages`). */
export class MongoMessageStore implements MessageStore {
  private readonly messages: Collection<MessageDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.messages = storeCollection(client, opts, 'messages');
  }

  /** Creates the index the writes and reads rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.messages.createIndex({ tenant: 1, runId: 1, index: 1, version: 1 }, { unique: true });
  }

  async put(
    tenant: string,
    runId: string,
    version: number,
    messages: { index: number; message: ChatMessage }[],
  ): Promise<void> {
    RecordId.parse(tenant);
    RecordId.parse(runId);
    if (!messages.length) return;
    const docs = messages.map(({ index, message }) => ({
      tenant,
      runId,
      index,
      version,
      json: JSON.stringify(message),
    }));
    try {
      await this.messages.insertMany(docs, { ordered: false });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      // A repeated write: FerretDB stops at the first duplicate, ordered or not, so the rest go one by one.
      for (const doc of docs) {
        try {
          await this.messages.insertOne(doc);
        } catch (e) {
          if (!isDuplicateKeyError(e)) throw e;
        }
      }
    }
    const indexes = messages.map((m) => m.index);
    await this.messages.deleteMany({ tenant, runId, index: { $in: indexes }, version: { $lt: version } });
  }

  async read(tenant: string, runId: string, count: number): Promise<StoredMessage[]> {
    if (!isId(tenant) || !isId(runId) || !Number.isFinite(count)) return [];
    const docs = await this.messages
      .find({ tenant, runId, index: { $lt: count } }, { projection: { _id: 0, index: 1, version: 1, json: 1 } })
      .sort({ index: 1, version: -1 })
      .toArray();
    // Each position's newest version (older ones are left only by a write that has not finished its cleanup).
    const newest = docs.filter((d, i) => i === 0 || docs[i - 1].index !== d.index);
    return newest.map((d) => ({ index: d.index, version: d.version, message: JSON.parse(d.json) as ChatMessage }));
  }
}
