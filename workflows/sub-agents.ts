// Running one sub-agent of a workflow agent as a child workflow: the right workflow type for its kind, the
// shared state in, its output (and, for nested workflow agents, their state) back.
import { startChild } from '@temporalio/workflow';
import { isWorkflowAgent, workflowTypeFor, type AnyAgentSpec, type ChatMessage, type RunContext, type RunLimits, type RunOutput } from '../common';
import type { RunControl } from './control';
import { childTokenLimit, nestedRunMemo } from './delegation';

/** One sub-agent run. */
export interface SubAgentCall {
  parent: RunContext;
  spec: AnyAgentSpec;
  input: string | ChatMessage[];
  state: Record<string, unknown>;
  /** Deterministic child workflow id. */
  childId: string;
  control: RunControl;
  /** Tokens the parent has spent so far (the sub-agent gets what is left of the budget). */
  spentTokens?: number;
  /** Sub-agents running at the same time, this one included (a parallel agent's branches): they split what is left. */
  shares?: number;
}

/** Starts the sub-agent as a child workflow and waits for its output (pause/resume are forwarded to it). */
export async function runSubAgent(call: SubAgentCall): Promise<RunOutput> {
  const { parent, spec } = call;
  const context: RunContext = {
    ...parent,
    runId: call.childId,
    parentRunId: parent.runId,
    depth: parent.depth + 1,
    lineage: [...parent.lineage, spec.name],
    limits: subAgentLimits(parent.limits, spec, call.spentTokens ?? 0, call.shares ?? 1),
    nestingType: 'workflow_agent',
    toolCallId: undefined,
  };
  const handle = await startChild(workflowTypeFor(spec.kind), {
    workflowId: call.childId,
    memo: nestedRunMemo(context, spec.name),
    args: [{ agent: spec, input: call.input, context, state: call.state }],
  });
  return call.control.child<RunOutput>(handle as never);
}

/**
 * The parent's limits with the sub-agent's own on top (its `limits`, and an LLM agent's `maxSteps`): the child
 * applies its context's limits over its spec's, so passing the parent's alone would override the sub-agent's own
 * step budget. The depth limit stays the tree's, and so does the token budget: the sub-agent gets what is left of
 * the parent's after `spentTokens` (its share of it, when `shares` run at once), lowered further by its own limit.
 */
function subAgentLimits(parent: RunLimits, spec: AnyAgentSpec, spentTokens: number, shares: number): RunLimits {
  const own = Object.fromEntries(Object.entries(spec.limits ?? {}).filter(([, v]) => v !== undefined));
  const steps = !isWorkflowAgent(spec) && spec.maxSteps ? { maxSteps: spec.maxSteps } : {};
  return { ...parent, ...own, ...steps, maxDepth: parent.maxDepth, ...childTokenLimit(parent, spec.limits?.maxTotalTokens, spentTokens, shares) };
}

/**
 * Applies a sub-agent's output to the shared state: its `outputKey` (the parsed `output` of an agent with an output
 * schema, else its response text; runs of earlier releases never have an `output`), and a nested workflow agent's state.
 */
export function applyOutput(state: Record<string, unknown>, spec: AnyAgentSpec, output: RunOutput): Record<string, unknown> {
  const value = output.output !== undefined ? output.output : output.response;
  return { ...state, ...(output.state ?? {}), ...(spec.outputKey ? { [spec.outputKey]: value } : {}) };
}
