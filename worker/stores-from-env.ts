// Stores from configuration: MongoDB when MONGODB_URI is set (worker and bridge then share them across
// processes), memory otherwise (the embedded default, where worker and bridge share one process).
import { MongoClient } from 'mongodb';
import { createMemoryStores, createMongoStores, type Stores } from '../stores';
import type { AgioEnv } from './config';

/** The stores and a function that releases their connection. */
export async function storesFromEnv(env: AgioEnv): Promise<{ stores: Stores; close: () => Promise<void> }> {
  if (!env.MONGODB_URI) return { stores: createMemoryStores(), close: async () => undefined };
  const client = await new MongoClient(env.MONGODB_URI).connect();
  const stores = createMongoStores(client);
  await stores.setup();
  return { stores, close: () => client.close() };
}
