// Running one sub-agent of a workflow agent as a child workflow: the right workflow type for its kind, the
// shared state in, its output (and, for nested workflow agents, their state) back.
import { patched, startChild } from '@temporalio/workflow';
import { workflowTypeFor, type AnyAgentSpec, type ChatMessage, type RunContext, type RunOutput } from '../../common';
import type { RunControl } from '../lifecycle/control';
import {
  BOUNDED_CHILD_IDS_PATCH,
  MAX_CHILD_ID_CHARS,
  boundedChildId,
  childContext,
  nestedRunMemo,
} from './child-context';

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
  const { spec } = call;
  const nesting = { type: 'workflow_agent' } as const;
  // Ids nest and grow with the tree; only a long one changes, so runs of earlier releases replay without a marker.
  const childId =
    call.childId.length > MAX_CHILD_ID_CHARS && patched(BOUNDED_CHILD_IDS_PATCH)
      ? boundedChildId(call.childId)
      : call.childId;
  const context = childContext(call.parent, {
    runId: childId,
    spec,
    nesting,
    spentTokens: call.spentTokens,
    shares: call.shares,
  });
  const handle = await startChild(workflowTypeFor(spec.kind), {
    workflowId: childId,
    memo: nestedRunMemo(context, spec.name),
    args: [{ agent: spec, input: call.input, context, state: call.state }],
  });
  return call.control.child<RunOutput>(handle as never);
}

/**
 * Applies a sub-agent's output to the shared state: its `outputKey` (the parsed `output` of an agent with an output
 * schema, else its response text; runs of earlier releases never have an `output`), and a nested workflow agent's
 * state.
 */
export function applyOutput(
  state: Record<string, unknown>,
  spec: AnyAgentSpec,
  output: RunOutput,
): Record<string, unknown> {
  const value = output.output !== undefined ? output.output : output.response;
  return { ...state, ...(output.state ?? {}), ...(spec.outputKey ? { [spec.outputKey]: value } : {}) };
}
