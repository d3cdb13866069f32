// Cost budgets in the agent loop: a model call refused because the tree's or the tenant's budget is spent pauses the
// run (reason `budget`) instead of failing it, and is asked again once the budget is raised or the run resumed.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { BudgetSpent, ErrorType, type CallBudget, type RunLimits } from '../../common';
import type { RunControl } from '../lifecycle/control';

/**
 * The patch under which an agent run sends its tenant and its tree's budget with each model call (so the worker prices
 * it into the spend ledger and refuses a call past a budget) and pauses for a spent budget. Asked when the run opens.
 */
export const COST_BUDGETS_PATCH = 'agio-cost-budgets';

/** What a model call is checked against: the tree's budget as the run knows it now (a raise updates the limits). */
export function callBudget(limits: Pick<RunLimits, 'maxCostUsd'>): CallBudget {
  return limits.maxCostUsd !== undefined ? { maxCostUsd: limits.maxCostUsd } : {};
}

/** The spent budget a failed model call reports, if that is why it failed. */
export function budgetSpentOf(err: unknown): BudgetSpent | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== ErrorType.BudgetSpent) return undefined;
  const parsed = BudgetSpent.safeParse(cause.details?.[0]);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Pauses the run for a spent budget and waits at this safe point until a raise or a resume; a tenant's daily budget
 * also wakes it when the UTC day ends. The caller asks again.
 */
async function waitForBudget(control: RunControl, spent: BudgetSpent): Promise<void> {
  control.pauseForBudget(spent);
  const dayMs = 24 * 60 * 60_000;
  await control.safePoint(undefined, spent.kind === 'tenant' ? dayMs - (Date.now() % dayMs) + 1000 : undefined);
}

/** Makes `call` until no budget refuses it: each refusal pauses the run until a raise or a resume. */
export async function withinBudget<T>(control: RunControl, call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const spent = budgetSpentOf(err);
      if (!spent) throw err;
      await waitForBudget(control, spent);
    }
  }
}
