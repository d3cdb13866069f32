// What the MongoDB stores share: where their collections live, and how an upsert survives a concurrent one.
import type { Collection, Document, MongoClient, OptionalUnlessRequiredId } from 'mongodb';

/** Where a MongoDB store keeps its collections. */
export interface MongoStoreOptions {
  /** Database name; default `agio`. */
  dbName?: string;
  /** Prepended to every collection name (e.g. `agio_`); default none. */
  collectionPrefix?: string;
}

/** A store's collection. Undefined fields are left out of writes instead of being stored as null. */
export function storeCollection<T extends Document>(
  client: MongoClient,
  opts: MongoStoreOptions,
  name: string,
): Collection<T> {
  return client
    .db(opts.dbName ?? 'agio')
    .collection<T>(`${opts.collectionPrefix ?? ''}${name}`, { ignoreUndefined: true });
}

/** Hides the fields a store adds to a record (the `_id`, the tenant) from what it returns. */
export const STORE_FIELDS = { _id: 0, tenant: 0 } as const;

/** True for a duplicate-key error (code 11000), including a bulk write whose every failure is one. */
export function isDuplicateKeyError(err: unknown): boolean {
  const e = err as { code?: unknown; writeErrors?: { code?: unknown }[] } | null;
  if (e?.code === 11000) return true;
  return Array.isArray(e?.writeErrors) && e.writeErrors.length > 0 && e.writeErrors.every((w) => w.code === 11000);
}

/**
 * Runs an upsert, and once more if it hit a duplicate key: two writers upserting the same new key race, the
 * loser's insert fails, and its retry then finds the winner's document. Returns false when the retry still
 * hits a duplicate key: the filter excludes the stored document on purpose (a finished run or span), which
 * therefore stays as it is.
 */
export async function upsertRacing(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  try {
    await write();
    return true;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return false;
  }
}

/**
 * Inserts documents a unique index identifies, skipping those already stored: the first write wins and a
 * repeated or concurrent write stores nothing more. (Preferred to a `$setOnInsert` upsert, which FerretDB 1.24
 * stores without its top-level null fields, e.g. a tool-calling step's `content: null`.)
 */
export async function insertOnce<T extends Document>(
  collection: Collection<T>,
  docs: OptionalUnlessRequiredId<T>[],
): Promise<void> {
  if (!docs.length) return;
  try {
    await collection.insertMany(docs, { ordered: false });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}
