// A nested run's cost budget (workflows/nesting/child-context.ts childLimits): the tree's, handed down, lowered by the
// child agent's own, never raised by it; the other limits as before.
import { defineAgent, resolveLimits } from '../../common';
import { childLimits } from '../../workflows/nesting/child-context';

const parent = resolveLimits({ maxCostUsd: 2 });

describe('childLimits and the cost budget', () => {
  it("hands the tree's budget down to a child without one", () => {
    expect(childLimits(parent, defineAgent({ name: 'c', instructions: 'c' }), 'agent_tool').maxCostUsd).toBe(2);
  });

  it("lowers it to the child agent's own, and never raises it", () => {
    const low = defineAgent({ name: 'c', instructions: 'c', limits: { maxCostUsd: 0.5 } });
    const high = defineAgent({ name: 'c', instructions: 'c', limits: { maxCostUsd: 9 } });
    expect(childLimits(parent, low, 'agent_tool').maxCostUsd).toBe(0.5);
    expect(childLimits(parent, high, 'workflow_agent').maxCostUsd).toBe(2);
  });

  it('sets none when neither has one', () => {
    const child = childLimits(resolveLimits(), defineAgent({ name: 'c', instructions: 'c' }), 'agent_tool');
    expect(child).not.toHaveProperty('maxCostUsd');
  });
});
