// A run's limits and maxTokens may only tighten its agent's own (unless an operator or admin allows raising them): the
// agent's author set them. Pure: the bridge checks a spec it holds, the worker checks a run started by name.
import { runLimitsFor, type RunLimitRequest, type RunLimits } from './limits';
import { isWorkflowAgent, type AnyAgentSpec } from './workflow-agents';

/** A requested value above the agent's own: which limit, what was asked, and the agent's bound (and whose it is). */
export interface LimitAboveAgent {
  limit: keyof RunLimitRequest | 'modelSettings.maxTokens';
  requested: number;
  agentLimit: number;
  /** The agent whose bound it is (for maxTokens: the LLM sub-agent with the lowest). */
  agent: string;
}

/** The agent's own value of a limit (its limits over the defaults); undefined: the agent sets no bound. */
function agentValue(agent: RunLimits, name: keyof RunLimitRequest): number | undefined {
  // Unset, compaction starts at three quarters of maxModelInputBytes (workflows/conversation/compaction.ts).
  if (name === 'compactModelInputBytes')
    return agent.compactModelInputBytes ?? Math.floor(agent.maxModelInputBytes * 0.75);
  return agent[name];
}

/**
 * The first of `limits` above the agent's own. Every limit is an upper bound, so a lower value only tightens; one the
 * agent leaves unbounded (maxTotalTokens, modelMaxAttempts) may be set to any value.
 */
export function limitAboveAgent(agent: AnyAgentSpec, limits: RunLimitRequest | undefined): LimitAboveAgent | undefined {
  if (!limits) return undefined;
  const own = runLimitsFor(agent);
  for (const name of Object.keys(limits) as (keyof RunLimitRequest)[]) {
    const requested = limits[name];
    const bound = agentValue(own, name);
    if (requested !== undefined && bound !== undefined && requested > bound)
      return { limit: name, requested, agentLimit: bound, agent: agent.name };
  }
  return undefined;
}

/** The lowest `maxTokens` the agent's own model settings set (a workflow agent: any LLM sub-agent's, at any depth). */
function ownMaxTokens(agent: AnyAgentSpec): { agent: string; maxTokens: number } | undefined {
  if (!isWorkflowAgent(agent)) {
    const maxTokens = agent.modelSettings?.maxTokens;
    return maxTokens === undefined ? undefined : { agent: agent.name, maxTokens };
  }
  return agent.subAgents
    .map(ownMaxTokens)
    .filter((own) => own !== undefined)
    .reduce<ReturnType<typeof ownMaxTokens>>(
      (low, own) => (!low || own.maxTokens < low.maxTokens ? own : low),
      undefined,
    );
}

/** A run's `modelSettings.maxTokens` above the one its agent (or one of its LLM sub-agents) sets for itself. */
export function maxTokensAboveAgent(agent: AnyAgentSpec, requested: number | undefined): LimitAboveAgent | undefined {
  if (requested === undefined) return undefined;
  const own = ownMaxTokens(agent);
  if (!own || requested <= own.maxTokens) return undefined;
  return { limit: 'modelSettings.maxTokens', requested, agentLimit: own.maxTokens, agent: own.agent };
}

/** What a refusal says: the limit, the value asked for and the agent's, and who may raise it. */
export function limitAboveAgentMessage(above: LimitAboveAgent): string {
  const what = above.limit === 'modelSettings.maxTokens' ? 'settings' : 'limits';
  const path = above.limit === 'modelSettings.maxTokens' ? above.limit : `limits.${above.limit}`;
  return (
    `${path}: ${above.requested} is above agent "${above.agent}"'s own ${above.agentLimit}; a run may only tighten its ` +
    `agent's ${what} (an admin token, or an operator setting AGIO_ALLOW_LIMIT_RAISE=true, may raise them)`
  );
}
