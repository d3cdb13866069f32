// Builds a run's context and first conversation from its input: pure and deterministic.
import {
  runLimitsFor,
  runWorkspace,
  type ChatMessage,
  type RunContext,
  type RunContextInput,
  type RunLimitOverrides,
} from '../../common';

/**
 * Fills a run's context (LLM or workflow agent) from its (partial) input context and its own workflow id.
 * Limits: as {@link runLimitsFor} resolves them. Clients send them resolved already, so this code's defaults only
 * fill in for a run started without them (the Temporal CLI, another SDK); either way the run carries them from here.
 */
export function buildRunContext(
  agent: { name: string; limits?: RunLimitOverrides; maxSteps?: number },
  partial: RunContextInput | undefined,
  workflowId: string,
): RunContext {
  const rootRunId = partial?.rootRunId ?? workflowId;
  const limits = runLimitsFor(agent, partial?.limits);
  return {
    ...partial,
    runId: workflowId,
    rootRunId,
    depth: partial?.depth ?? 0,
    lineage: partial?.lineage ?? [agent.name],
    tenant: partial?.tenant ?? 'default',
    workspace: partial?.workspace ?? runWorkspace(rootRunId),
    limits,
    stream: partial?.stream ?? 'full',
  };
}

/** Replaces `{key}` in instructions with values from state; unknown keys are left as written. */
export function renderInstructions(template: string, state: Record<string, unknown> = {}): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g, (whole, key: string) => {
    // Own keys only: `{constructor}` or `{toString}` must not pick up Object.prototype members.
    if (!Object.hasOwn(state, key)) return whole;
    const value = state[key];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The conversation a run starts from: its instructions, then the user's input. */
export function initialMessages(instructions: string, input: string | ChatMessage[]): ChatMessage[] {
  const system: ChatMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const rest: ChatMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  return [...system, ...rest];
}

/** The message that asks for a final answer when the step budget is spent. */
export const MAX_STEPS_PROMPT =
  'You have reached the maximum number of steps for this task. Do not call any more tools. ' +
  'Summarise what you found and done so far and give your best final answer.';
