// A run's limits from POST /runs may only tighten its agent's: the agent's author set them, and a caller who could raise
// them (more steps, tokens, depth, a longer retry window) could spend more than the author allowed.
import { isWorkflowAgent, runLimitsFor, type AnyAgentSpec, type RunLimitRequest, type RunLimits } from '../common';
import { HttpError } from './errors';

/** The agent's own value of a limit (its limits over the defaults); undefined: the agent sets no bound. */
function agentValue(agent: RunLimits, name: keyof RunLimitRequest): number | undefined {
  // Unset, compaction starts at three quarters of maxModelInputBytes (workflows/compaction.ts).
  if (name === 'compactModelInputBytes')
    return agent.compactModelInputBytes ?? Math.floor(agent.maxModelInputBytes * 0.75);
  return agent[name];
}

/**
 * Refuses (400 limit_above_agent, naming the limit, the value asked for and the agent's) any limit above the agent's
 * own, unless `allowRaise` (an operator's AGIO_ALLOW_LIMIT_RAISE, or an admin token). Every limit is an upper bound, so
 * a lower value only tightens; one the agent leaves unbounded (maxTotalTokens, modelMaxAttempts) may be set to any value.
 */
export function refuseLimitRaise(agent: AnyAgentSpec, limits: RunLimitRequest | undefined, allowRaise: boolean): void {
  if (!limits || allowRaise) return;
  const own = runLimitsFor(agent);
  for (const name of Object.keys(limits) as (keyof RunLimitRequest)[]) {
    const requested = limits[name];
    const bound = agentValue(own, name);
    if (requested === undefined || bound === undefined || requested <= bound) continue;
    throw new HttpError(
      400,
      'limit_above_agent',
      `limits.${name}: ${requested} is above agent "${agent.name}"'s own ${bound}; a run may only tighten its agent's ` +
        'limits (an admin token, or an operator setting AGIO_ALLOW_LIMIT_RAISE=true, may raise them)',
      { limit: name, requested, agentLimit: bound },
    );
  }
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

/**
 * Refuses (400 limit_above_agent) a run's `modelSettings.maxTokens` above the one its agent (or one of its LLM
 * sub-agents, whose settings the run's are merged over) sets for itself, unless `allowRaise`.
 */
export function refuseMaxTokensRaise(agent: AnyAgentSpec, requested: number | undefined, allowRaise: boolean): void {
  if (requested === undefined || allowRaise) return;
  const own = ownMaxTokens(agent);
  if (!own || requested <= own.maxTokens) return;
  throw new HttpError(
    400,
    'limit_above_agent',
    `modelSettings.maxTokens: ${requested} is above agent "${own.agent}"'s own ${own.maxTokens}; a run may only ` +
      "tighten its agent's settings (an admin token, or an operator setting AGIO_ALLOW_LIMIT_RAISE=true, may raise them)",
    { limit: 'modelSettings.maxTokens', requested, agentLimit: own.maxTokens },
  );
}
