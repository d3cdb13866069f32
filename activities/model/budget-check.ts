// The cost budgets' check and ledger around callModel: before the provider is called, the run tree's spend is checked
// against its budget and the tenant's spend today against its daily budget (a spent one refuses the call with
// BudgetSpent, and the run pauses); after a priced call, its cost goes into the spend ledger once per attempt.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, type BudgetSpent } from '../../common';
import { utcDay, type SpendStore } from '../../stores';
import type { CallModelInput, CallModelOutput } from '../../common/contracts/model-call';

/** Where spend is kept and the operator's default daily budget per tenant. */
export interface BudgetDeps {
  spend: SpendStore;
  tenantDailyBudgetUsd?: number;
}

/** The first budget the call would overrun (the tree's, then the tenant's), or undefined. */
export async function spentBudget(
  deps: BudgetDeps,
  input: CallModelInput,
  now: number,
): Promise<BudgetSpent | undefined> {
  const { tenant, budget } = input;
  if (!tenant || !budget) return undefined; // runs started before the budgets: unchecked
  if (budget.maxCostUsd !== undefined) {
    const spentUsd = await deps.spend.treeSpend(tenant, input.rootRunId);
    if (spentUsd >= budget.maxCostUsd) return { kind: 'run', limitUsd: budget.maxCostUsd, spentUsd };
  }
  const daily = (await deps.spend.tenantBudget(tenant)) ?? deps.tenantDailyBudgetUsd;
  if (daily !== undefined) {
    const spentUsd = await deps.spend.tenantSpend(tenant, utcDay(now));
    if (spentUsd >= daily) return { kind: 'tenant', limitUsd: daily, spentUsd };
  }
  return undefined;
}

/** callModel refusing a call whose budget is spent, and adding each priced call's cost to the ledger. */
export function budgetedCallModel(
  callModel: (input: CallModelInput) => Promise<CallModelOutput>,
  deps: BudgetDeps,
): (input: CallModelInput) => Promise<CallModelOutput> {
  return async (input) => {
    // A ledger that cannot be read admits the call: a store outage must not stop every run.
    const spent = await spentBudget(deps, input, Date.now()).catch((err: Error) => {
      console.warn(`agio: cost budgets not checked (spend store): ${err.message}`);
      return undefined;
    });
    if (spent) {
      const which =
        spent.kind === 'run' ? "the run tree's budget (limits.maxCostUsd)" : `tenant "${input.tenant}"'s daily budget`;
      throw ApplicationFailure.create({
        type: ErrorType.BudgetSpent,
        nonRetryable: true,
        message: `${which} is spent: $${spent.spentUsd.toFixed(6)} of $${spent.limitUsd}; raise it to continue`,
        details: [spent],
      });
    }
    const out = await callModel(input);
    const costUsd = out.usage.costUsd;
    if (input.tenant && costUsd) {
      const { info } = Context.current();
      const entry = {
        key: `${info.workflowExecution?.runId ?? input.runId}:${info.activityId}:${info.attempt}`,
        tenant: input.tenant,
        day: utcDay(Date.now()),
        rootRunId: input.rootRunId,
        runId: input.runId,
        costUsd,
      };
      await deps.spend.record(entry).catch((err: Error) => {
        console.warn(`agio: spend of ${input.stepId} not recorded: ${err.message}`);
      });
    }
    return out;
  };
}
