// MongoDB stores for integration tests: a database of its own on the harness's FerretDB, dropped at the end.
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { createMongoStores, type Stores } from '../../stores';
import { testEnv } from './test-env';

/** Stores in a fresh database, the client that reaches it, and a URI naming that database (for MONGODB_URI). */
export interface TestMongoStores {
  stores: Stores;
  client: MongoClient;
  dbName: string;
  /** The harness's server with this database in its path, e.g. mongodb://127.0.0.1:PORT/agio_it_…. */
  uri: string;
  /** Drops the database and closes the client. */
  close(): Promise<void>;
}

/**
 * Opens MongoDB stores in a new database (indexes set up), their collections named with `collectionPrefix` if given.
 */
export async function openMongoStores(opts: { collectionPrefix?: string } = {}): Promise<TestMongoStores> {
  const base = testEnv('mongoUri');
  const client = await new MongoClient(base, { serverSelectionTimeoutMS: 10_000 }).connect();
  const dbName = `agio_it_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const stores = createMongoStores(client, { dbName, ...opts });
  await stores.setup();
  return {
    stores,
    client,
    dbName,
    uri: `${base.replace(/\/+$/, '')}/${dbName}`,
    async close() {
      await client.db(dbName).dropDatabase();
      await client.close();
    },
  };
}
