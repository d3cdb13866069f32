// The MongoDB-protocol server of the harness: the official driver inserts, filters, sorts and indexes on FerretDB.
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { testEnv } from '../helpers/test-env';

describe('MongoDB-protocol test server', () => {
  let mongo: MongoClient;
  beforeAll(async () => {
    mongo = await new MongoClient(testEnv('mongoUri'), { serverSelectionTimeoutMS: 10_000 }).connect();
  });
  afterAll(() => mongo?.close());

  it('inserts, queries with a filter and sort, and creates an index through the official driver', async () => {
    const coll = mongo
      .db(`smoke_${randomUUID().slice(0, 8)}`)
      .collection<{ run: string; n: number; tenant: string }>('steps');
    await coll.insertMany([
      { run: 'a', n: 2, tenant: 't1' },
      { run: 'a', n: 1, tenant: 't1' },
      { run: 'b', n: 3, tenant: 't2' },
      { run: 'a', n: 3, tenant: 't1' },
    ]);
    const found = await coll.find({ run: 'a' }, { sort: { n: -1 }, projection: { _id: 0 } }).toArray();
    expect(found.map((d) => d.n)).toEqual([3, 2, 1]);
    const name = await coll.createIndex({ run: 1, n: 1 }, { unique: true });
    const indexes = await coll.listIndexes().toArray();
    expect(indexes.map((i) => i.name)).toContain(name);
    await expect(coll.insertOne({ run: 'a', n: 1, tenant: 't1' })).rejects.toThrow(/duplicate key/i);
  });
});
