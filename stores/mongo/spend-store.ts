// SpendStore on MongoDB: one document per priced call attempt (unique key), summed on read; tenants' budgets apart.
import type { Collection, MongoClient } from 'mongodb';
import { isId } from '../records';
import type { SpendEntry, SpendStore } from '../spend';
import { insertOnce, storeCollection, upsertRacing, type MongoStoreOptions } from './collections';

interface BudgetDoc {
  tenant: string;
  dailyUsd: number;
}

/** Spend in MongoDB (collections `spend` and `tenant_budgets`). */
export class MongoSpendStore implements SpendStore {
  private readonly spend: Collection<SpendEntry>;
  private readonly budgets: Collection<BudgetDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.spend = storeCollection(client, opts, 'spend');
    this.budgets = storeCollection(client, opts, 'tenant_budgets');
  }

  /** Creates the indexes the writes and sums rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.spend.createIndex({ key: 1 }, { unique: true });
    await this.spend.createIndex({ tenant: 1, rootRunId: 1 });
    await this.spend.createIndex({ tenant: 1, day: 1 });
    await this.budgets.createIndex({ tenant: 1 }, { unique: true });
  }

  async record(entry: SpendEntry): Promise<void> {
    await insertOnce(this.spend, [{ ...entry }]);
  }

  async treeSpend(tenant: string, rootRunId: string): Promise<number> {
    return this.sum({ tenant, rootRunId });
  }

  async tenantSpend(tenant: string, day: string): Promise<number> {
    return this.sum({ tenant, day });
  }

  async setTenantBudget(tenant: string, dailyUsd: number | undefined): Promise<void> {
    if (dailyUsd === undefined) {
      await this.budgets.deleteOne({ tenant });
      return;
    }
    await upsertRacing(() => this.budgets.updateOne({ tenant }, { $set: { dailyUsd } }, { upsert: true }));
  }

  async tenantBudget(tenant: string): Promise<number | undefined> {
    if (!isId(tenant)) return undefined;
    const doc = await this.budgets.findOne({ tenant });
    return doc?.dailyUsd;
  }

  // Summed here rather than by an aggregation: a tree or a tenant's day holds few enough calls to read.
  private async sum(filter: Partial<SpendEntry>): Promise<number> {
    if (!Object.values(filter).every(isId)) return 0; // never an operator object in a filter
    const docs = await this.spend.find(filter, { projection: { _id: 0, costUsd: 1 } }).toArray();
    return docs.reduce((total, d) => total + d.costUsd, 0);
  }
}
