// The cost budgets' check before a model call (activities/model/budget-check.ts): the tree's budget first, then the
// tenant's own daily budget over the operator's default (AGIO_TENANT_DAILY_BUDGET_USD), each compared with the ledger's
// spend.
import { spentBudget } from '../../activities/model/budget-check';
import { AgioEnv, modelConfigFromEnv } from '../../config';
import { MemorySpendStore, utcDay } from '../../stores';
import type { CallModelInput } from '../../common/contracts/model-call';

const NOW = Date.UTC(2026, 10, 25, 12);
const input = (fields: Partial<CallModelInput>): CallModelInput =>
  ({
    runId: 'run-a/tool/1-x',
    rootRunId: 'run-a',
    tenant: 'acme',
    stepId: 's',
    stepIndex: 1,
    tools: [],
    ...fields,
  }) as CallModelInput;

describe('spentBudget', () => {
  let spend: MemorySpendStore;
  beforeEach(async () => {
    spend = new MemorySpendStore();
    const entry = { tenant: 'acme', day: utcDay(NOW), rootRunId: 'run-a', runId: 'run-a', costUsd: 0.3 };
    await spend.record({ ...entry, key: '1' });
    await spend.record({ ...entry, key: '2', rootRunId: 'run-b', runId: 'run-b' });
  });

  it("names the tree's budget when the tree has spent it, counting only that tree", async () => {
    expect(await spentBudget({ spend }, input({ budget: { maxCostUsd: 0.3 } }), NOW)).toEqual({
      kind: 'run',
      limitUsd: 0.3,
      spentUsd: 0.3,
    });
    expect(await spentBudget({ spend }, input({ budget: { maxCostUsd: 0.31 } }), NOW)).toBeUndefined();
  });

  it("applies the operator's daily default unless the tenant has its own, and only to today's spend", async () => {
    const deps = { spend, tenantDailyBudgetUsd: 0.5 };
    expect(await spentBudget(deps, input({ budget: {} }), NOW)).toEqual({
      kind: 'tenant',
      limitUsd: 0.5,
      spentUsd: 0.6,
    });
    expect(await spentBudget(deps, input({ budget: {} }), NOW + 24 * 3600_000)).toBeUndefined();
    await spend.setTenantBudget('acme', 2);
    expect(await spentBudget(deps, input({ budget: {} }), NOW)).toBeUndefined();
  });

  it('checks nothing for calls of runs started before the budgets (no budget or tenant sent)', async () => {
    expect(await spentBudget({ spend, tenantDailyBudgetUsd: 0.01 }, input({}), NOW)).toBeUndefined();
  });

  it('reads the default from AGIO_TENANT_DAILY_BUDGET_USD, refusing a value that is not a positive number', () => {
    expect(modelConfigFromEnv(AgioEnv.parse({ AGIO_TENANT_DAILY_BUDGET_USD: '25' })).tenantDailyBudgetUsd).toBe(25);
    expect(modelConfigFromEnv(AgioEnv.parse({})).tenantDailyBudgetUsd).toBeUndefined();
    expect(AgioEnv.safeParse({ AGIO_TENANT_DAILY_BUDGET_USD: '-1' }).success).toBe(false);
  });
});
