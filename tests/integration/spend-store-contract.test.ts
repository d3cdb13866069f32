// The spend ledger's contract, run against memory and MongoDB (the harness's FerretDB): each call's cost counted once
// by key, summed per tree and per tenant and day, tenants apart; tenants' daily budgets set and cleared.
import type { SpendEntry } from '../../stores';
import { describeEachStore, storeBackends, uniqueId as id } from '../helpers/store-contract';

const backends = storeBackends((stores) => stores.spend);

describeEachStore('spend store', backends, (store) => {
  const entry = (fields: Partial<SpendEntry>): SpendEntry => ({
    key: id('k'),
    tenant: 't',
    day: '2026-11-25',
    rootRunId: 'run-root',
    runId: 'run-root',
    costUsd: 0.001,
    ...fields,
  });

  it('sums a tree and a tenant day, each key counted once, other tenants and days apart', async () => {
    const tenant = id('tenant');
    const root = id('run');
    const first = entry({ tenant, rootRunId: root, costUsd: 0.25 });
    await store.record(first);
    await store.record({ ...first }); // a retried write
    await store.record(entry({ tenant, rootRunId: root, runId: `${root}/tool/1-a`, costUsd: 0.5 }));
    await store.record(entry({ tenant, rootRunId: id('run'), costUsd: 1 }));
    await store.record(entry({ tenant, rootRunId: root, day: '2026-11-26', costUsd: 2 }));
    await store.record(entry({ tenant: id('other'), rootRunId: root, costUsd: 4 }));
    expect(await store.treeSpend(tenant, root)).toBeCloseTo(2.75, 9);
    expect(await store.tenantSpend(tenant, '2026-11-25')).toBeCloseTo(1.75, 9);
    expect(await store.tenantSpend(tenant, '2026-11-27')).toBe(0);
    expect(await store.treeSpend(id('nobody'), root)).toBe(0);
  });

  it('reads an operator object as nothing spent', async () => {
    expect(await store.treeSpend({ $ne: null } as unknown as string, 'run-root')).toBe(0);
  });

  it('sets, replaces and clears a tenant daily budget', async () => {
    const tenant = id('tenant');
    expect(await store.tenantBudget(tenant)).toBeUndefined();
    await store.setTenantBudget(tenant, 5);
    await store.setTenantBudget(tenant, 7.5);
    expect(await store.tenantBudget(tenant)).toBe(7.5);
    await store.setTenantBudget(tenant, undefined);
    expect(await store.tenantBudget(tenant)).toBeUndefined();
  });
});
