// The resolveAgent activity (runs started by name): the worker's spec with the run's model settings merged and its
// limits resolved, `found: false` for a name it lacks, and with tightenOnly a refusal of limits above the agent's own.
import { AgentRegistry, defineAgent, resolveLimits, sequentialAgent } from '../../common';
import { createResolveAgent } from '../../activities/resolve-agent';

describe('resolveAgent', () => {
  const lead = defineAgent({ name: 'lead', instructions: 'Lead.', maxSteps: 20, modelSettings: { maxTokens: 1000 } });
  const team = sequentialAgent({ name: 'team', subAgents: [lead] });
  const resolveAgent = createResolveAgent(new AgentRegistry([lead, team]));

  it("answers the spec with the run's settings merged and its limits resolved over the agent's own", async () => {
    const answer = await resolveAgent({
      name: 'lead',
      tenant: 't',
      modelSettings: { temperature: 0.1 },
      limits: { maxTotalTokens: 500 },
    });

    expect(answer).toEqual({
      found: true,
      agent: { ...lead, modelSettings: { maxTokens: 1000, temperature: 0.1 } },
      limits: resolveLimits({ maxSteps: 20, maxTotalTokens: 500 }),
    });
  });

  it('answers found: false for a name the worker does not have', async () => {
    expect(await resolveAgent({ name: 'nobody', tenant: 't' })).toEqual({ found: false });
  });

  it("with tightenOnly refuses a limit or maxTokens above the agent's own (a workflow agent: its sub-agents'), and allows tightening", async () => {
    const steps = await resolveAgent({ name: 'lead', tenant: 't', tightenOnly: true, limits: { maxSteps: 21 } });
    const tokens = await resolveAgent({
      name: 'team',
      tenant: 't',
      tightenOnly: true,
      modelSettings: { maxTokens: 2000 },
    });
    const tighter = await resolveAgent({
      name: 'lead',
      tenant: 't',
      tightenOnly: true,
      limits: { maxSteps: 5 },
      modelSettings: { maxTokens: 10 },
    });
    const raised = await resolveAgent({ name: 'lead', tenant: 't', limits: { maxSteps: 21 } });

    expect(steps).toMatchObject({ refused: { limit: 'maxSteps', requested: 21, agentLimit: 20, agent: 'lead' } });
    expect(tokens).toMatchObject({
      refused: { limit: 'modelSettings.maxTokens', requested: 2000, agentLimit: 1000, agent: 'lead' },
    });
    expect(tighter).not.toHaveProperty('refused');
    expect(raised).not.toHaveProperty('refused');
  });
});
