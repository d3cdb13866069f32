// The resolveAgent activity: a run started by name gets its agent's spec (and its limits) from this worker's agents,
// the agents file or code-defined agents it was created with. Its answer is recorded in the run's history, so the
// history still says exactly what ran, and changing an agent is a worker deploy.
import {
  limitAboveAgent,
  maxTokensAboveAgent,
  runLimitsFor,
  withModelSettings,
  type AgentRegistry,
  type ResolveAgentInput,
  type ResolveAgentOutput,
} from '../common';

/** resolveAgent bound to the worker's agents: `found: false` for a name it does not have (the run then fails). */
export function createResolveAgent(agents: AgentRegistry) {
  return async function resolveAgent(input: ResolveAgentInput): Promise<ResolveAgentOutput> {
    const own = agents.find(input.name);
    if (!own) return { found: false };
    const agent = input.modelSettings ? withModelSettings(own, input.modelSettings) : own;
    // Resolved here, once: the run decides with this worker's defaults whatever release later runs it.
    const limits = runLimitsFor(agent, input.limits);
    const refused = input.tightenOnly
      ? (limitAboveAgent(own, input.limits) ?? maxTokensAboveAgent(own, input.modelSettings?.maxTokens))
      : undefined;
    return { found: true, agent, limits, ...(refused ? { refused } : {}) };
  };
}
