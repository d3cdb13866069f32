// A run's limits from POST /runs may only tighten its agent's: the agent's author set them, and a caller who could
// raise them (more steps, tokens, depth, a longer retry window) could spend more than the author allowed. The checks
// are in common/limit-bounds.ts (the worker makes them too, for runs started by a name the bridge does not hold).
import {
  limitAboveAgent,
  limitAboveAgentMessage,
  maxTokensAboveAgent,
  type AnyAgentSpec,
  type LimitAboveAgent,
  type RunLimitRequest,
} from '../common';
import { HttpError } from './errors';

/** 400 limit_above_agent, naming the limit, the value asked for and the agent's. */
function refusal(above: LimitAboveAgent): HttpError {
  return new HttpError(400, 'limit_above_agent', limitAboveAgentMessage(above), {
    limit: above.limit,
    requested: above.requested,
    agentLimit: above.agentLimit,
  });
}

/**
 * Refuses (400 limit_above_agent, naming the limit, the value asked for and the agent's) any limit above the agent's
 * own, unless `allowRaise` (an operator's AGIO_ALLOW_LIMIT_RAISE, or an admin token).
 */
export function refuseLimitRaise(agent: AnyAgentSpec, limits: RunLimitRequest | undefined, allowRaise: boolean): void {
  const above = allowRaise ? undefined : limitAboveAgent(agent, limits);
  if (above) throw refusal(above);
}

/**
 * Refuses (400 limit_above_agent) a run's `modelSettings.maxTokens` above the one its agent (or one of its LLM
 * sub-agents, whose settings the run's are merged over) sets for itself, unless `allowRaise`.
 */
export function refuseMaxTokensRaise(agent: AnyAgentSpec, requested: number | undefined, allowRaise: boolean): void {
  const above = allowRaise ? undefined : maxTokensAboveAgent(agent, requested);
  if (above) throw refusal(above);
}
