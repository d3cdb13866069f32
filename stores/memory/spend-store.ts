// SpendStore in memory: entries by key, summed on read.
import type { SpendEntry, SpendStore } from '../spend';

/** Spend in Maps; lost when the process exits. */
export class MemorySpendStore implements SpendStore {
  private readonly entries = new Map<string, SpendEntry>();
  private readonly budgets = new Map<string, number>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async record(entry: SpendEntry): Promise<void> {
    if (!this.entries.has(entry.key)) this.entries.set(entry.key, { ...entry });
  }

  async treeSpend(tenant: string, rootRunId: string): Promise<number> {
    return this.sum((e) => e.tenant === tenant && e.rootRunId === rootRunId);
  }

  async tenantSpend(tenant: string, day: string): Promise<number> {
    return this.sum((e) => e.tenant === tenant && e.day === day);
  }

  async setTenantBudget(tenant: string, dailyUsd: number | undefined): Promise<void> {
    if (dailyUsd === undefined) this.budgets.delete(tenant);
    else this.budgets.set(tenant, dailyUsd);
  }

  async tenantBudget(tenant: string): Promise<number | undefined> {
    return this.budgets.get(tenant);
  }

  private sum(match: (e: SpendEntry) => boolean): number {
    let total = 0;
    for (const e of this.entries.values()) if (match(e)) total += e.costUsd;
    return total;
  }
}
