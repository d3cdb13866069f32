// Cost budgets (docs: "Budgets that wait instead of fail"): what a model call is checked against, what a spent budget
// reports (the RUN_PAUSED data of a run paused for it), and the raise an operator sends.
import { z } from 'zod';
import { CostUsdRequest } from './limits';
import type { Usage } from './steps';

/** The pause reason of a run whose cost budget is spent (RUN_PAUSED `data.reason`, the state's `pauseReason`). */
export const BUDGET_PAUSE_REASON = 'budget';

/**
 * A spent budget: which (`run`: the tree's limits.maxCostUsd; `tenant`: the tenant's daily budget), its limit and the
 * spend.
 */
export const BudgetSpent = z.object({
  kind: z.enum(['run', 'tenant']),
  limitUsd: z.number(),
  spentUsd: z.number(),
});
/** A spent budget: which, its limit and the spend, in US dollars. */
export type BudgetSpent = z.infer<typeof BudgetSpent>;

/** What a callModel input asks to be checked before the provider is called (the tenant's daily budget always). */
export interface CallBudget {
  /** The run tree's budget (limits.maxCostUsd, or what an operator raised it to). */
  maxCostUsd?: number;
}

/** A raise of a run's budget (and a nudge to runs paused for their tenant's, after an operator raised that). */
export interface BudgetRaise {
  /** The tree's new budget in US dollars; absent: only runs paused for a budget look again. */
  maxCostUsd?: number;
  /** Who raised it (the bridge sets the token's identity). */
  by?: string;
}

/** A raise as a caller sends it: `maxCostUsd` bounded like the limit (HTTP `POST /runs/:id/budget`). */
export const BudgetRaiseRequest = z.object({ maxCostUsd: CostUsdRequest }).strict();

/** A tenant daily budget as an admin sends it (HTTP `PUT /tenants/:tenant/budget`); null clears it. */
export const TenantBudgetRequest = z.object({ dailyUsd: CostUsdRequest.nullable() }).strict();

/** What RUN_PAUSED says when a run pauses for a budget: the stable shape metrics and readers count on. */
export function budgetPauseData(spent: BudgetSpent): { reason: string; by: string; budget: BudgetSpent } {
  return { reason: BUDGET_PAUSE_REASON, by: 'agio', budget: spent };
}

/**
 * What a run cost in US dollars, as readers show it: `usd` summed over the priced model calls; `unknownPrice` when some
 * call's model had no price (then `usd` counts only the others).
 */
export interface RunCost {
  usd: number;
  unknownPrice?: true;
  /** The whole tree's priced spend so far, from the spend ledger (nested runs still running included). */
  treeSpentUsd?: number;
}

/** The cost part of a usage (undefined without one). */
export function runCostOf(usage: Usage | undefined): RunCost | undefined {
  if (!usage) return undefined;
  return { usd: usage.costUsd ?? 0, ...(usage.costUnknown ? { unknownPrice: true as const } : {}) };
}
