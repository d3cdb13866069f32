// Stores from configuration: MongoDB when MONGODB_URI is set (worker and bridge then share them across
// processes), memory otherwise (the embedded default, where worker and bridge share one process).
import { optionalPackage } from '../common/optional-package';
import path from 'node:path';
import { createMemoryStores, createMongoStores, type Stores } from '../stores';
import { FileWebhookStore } from '../stores/file-webhook-store';
import type { AgioEnv } from './env';

/**
 * The stores and a function that releases their connection. `dataDir` (agio serve): without MongoDB, webhook
 * subscriptions and their delivery log are kept in `<dataDir>/webhooks.json`, so they outlive a restart.
 */
export async function storesFromEnv(
  env: Pick<AgioEnv, 'MONGODB_URI'>,
  opts: { dataDir?: string } = {},
): Promise<{ stores: Stores; close: () => Promise<void> }> {
  if (!env.MONGODB_URI) {
    const { dataDir } = opts;
    const stores = createMemoryStores(
      dataDir ? { webhooks: new FileWebhookStore(path.join(dataDir, 'webhooks.json')) } : {},
    );
    await stores.setup();
    return { stores, close: async () => undefined };
  }
  const { MongoClient } = optionalPackage<typeof import('mongodb')>('mongodb', 'MONGODB_URI (the MongoDB stores)');
  const client = await new MongoClient(env.MONGODB_URI).connect();
  try {
    // A database named in the URI (mongodb://host/mydb) is the one to use; without one, the stores' default.
    const dbName = uriDatabase(env.MONGODB_URI) ? client.options.dbName : undefined;
    const stores = createMongoStores(client, dbName ? { dbName } : {});
    await stores.setup();
    return { stores, close: () => client.close() };
  } catch (err) {
    // Setup failed (no permission to create indexes, server gone): release the connection, or the process never exits.
    await client.close().catch(() => undefined);
    throw err;
  }
}

/** The database path of a MongoDB connection string, if it names one (`mongodb://h1,h2/db?opts` → `db`). */
function uriDatabase(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/i.exec(uri);
  return match?.[1] ? match[1] : undefined;
}
