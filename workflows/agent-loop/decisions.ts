// What the agent loop does after a model step, as an explicit union so the loop's choices are testable.
import type { RunLimits, Step, Usage } from '../../common';

/** The loop's next move after an assistant step. */
export type NextStep =
  { kind: 'run_tools' } | { kind: 'final_output'; response: string } | { kind: 'max_steps' } | { kind: 'max_tokens' };

/** Decides from the last assistant step, the model calls made so far and the usage spent. */
export function decideNext(step: Step, modelCalls: number, usage: Usage, limits: RunLimits): NextStep {
  if (!step.toolCalls?.length) return { kind: 'final_output', response: step.content ?? '' };
  if (spentBudget(usage, limits)) return { kind: 'max_tokens' };
  if (modelCalls >= limits.maxSteps) return { kind: 'max_steps' };
  return { kind: 'run_tools' };
}

/** True once `usage` has reached the token budget (never without one). */
export function spentBudget(usage: Usage, limits: RunLimits): boolean {
  return limits.maxTotalTokens !== undefined && usage.totalTokens >= limits.maxTotalTokens;
}
