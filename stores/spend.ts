// The spend ledger's contract: what each priced model call cost, by tree and by tenant and day, for the cost budgets
// (activities/model/budget-check.ts), and the per-tenant daily budgets an operator sets.

/** One priced model call attempt's cost. */
export interface SpendEntry {
  /** Unique per attempt (workflow id, activity id, attempt): a retried write adds nothing. */
  key: string;
  tenant: string;
  /** The UTC day the call ended in (`YYYY-MM-DD`). */
  day: string;
  /** The tree the call was made in (its root run's id). */
  rootRunId: string;
  runId: string;
  costUsd: number;
}

/** Spend by tree and by tenant per day, and the tenants' daily budgets. */
export interface SpendStore {
  setup(): Promise<void>;
  /** Adds an entry once (by key); a second write with the same key changes nothing. */
  record(entry: SpendEntry): Promise<void>;
  /** What a tree (every run under `rootRunId`) has spent, in US dollars. */
  treeSpend(tenant: string, rootRunId: string): Promise<number>;
  /** What a tenant has spent on `day`, in US dollars. */
  tenantSpend(tenant: string, day: string): Promise<number>;
  /** Sets (a number) or clears (undefined) a tenant's own daily budget, over the operator's default. */
  setTenantBudget(tenant: string, dailyUsd: number | undefined): Promise<void>;
  /** A tenant's own daily budget, if one was set. */
  tenantBudget(tenant: string): Promise<number | undefined>;
}

/** The UTC day of `ms` as `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
