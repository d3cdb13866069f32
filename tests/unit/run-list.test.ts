// The visibility query behind GET /runs: always scoped to the tenant, values quoted so no filter can widen it.
import { listQuery } from '../../client/run-list';

describe('listQuery', () => {
  it("scopes to the tenant ('default' when none) and leaves out executions that continued as new", () => {
    expect(listQuery({})).toBe("AgioTenant = 'default' AND ExecutionStatus != 'ContinuedAsNew'");
    expect(listQuery({ tenant: 'acme' })).toBe("AgioTenant = 'acme' AND ExecutionStatus != 'ContinuedAsNew'");
  });

  it("filters by agent and by status, in Temporal's status names", () => {
    expect(listQuery({ tenant: 't', agent: 'lead', status: 'cancelled' })).toBe(
      "AgioTenant = 't' AND AgioAgent = 'lead' AND ExecutionStatus = 'Canceled'",
    );
    expect(listQuery({ tenant: 't', status: 'timed_out' })).toBe("AgioTenant = 't' AND ExecutionStatus = 'TimedOut'");
  });

  it('quotes values, so a tenant or agent name cannot end the string and add conditions', () => {
    expect(listQuery({ tenant: "x' OR AgioTenant != '", agent: 'a\\' })).toBe(
      "AgioTenant = 'x\\' OR AgioTenant != \\'' AND AgioAgent = 'a\\\\' AND ExecutionStatus != 'ContinuedAsNew'",
    );
  });
});
