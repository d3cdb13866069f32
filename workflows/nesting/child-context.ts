// Where a child run stands in its tree (an agent called as a tool, or a sub-agent of a workflow agent): its context,
// its limits and its memo, derived in one place for both kinds of nesting. Pure and deterministic.
import {
  isWorkflowAgent,
  resolveLimits,
  type AnyAgentSpec,
  type RunContext,
  type RunLimits,
  type RunMemo,
} from '../../common';

/** How a child is started: by an LLM agent's tool call, or by a workflow agent as one of its sub-agents. */
export type Nesting = { type: 'agent_tool'; toolCallId: string; stream: 'full' | 'none' } | { type: 'workflow_agent' };

/** A child about to start. */
export interface ChildRun {
  /** Its workflow id (deterministic). */
  runId: string;
  spec: AnyAgentSpec;
  nesting: Nesting;
  /** Tokens the parent's tree has spent so far: the child gets what is left of the budget. */
  spentTokens?: number;
  /** Children running at the same time, this one included: they split what is left. */
  shares?: number;
}

/**
 * The child's context: same root, session and trace; one level deeper. An agent tool gets its own namespaced workspace
 * and streams as its tool says (never more than its parent); a sub-agent shares its workflow agent's workspace and
 * stream. Limits: see {@link childLimits}.
 */
export function childContext(parent: RunContext, child: ChildRun): RunContext {
  const { spec, nesting } = child;
  const context: RunContext = {
    ...parent,
    runId: child.runId,
    parentRunId: parent.runId,
    depth: parent.depth + 1,
    lineage: [...parent.lineage, spec.name],
    limits: childLimits(parent.limits, spec, nesting.type, child.spentTokens, child.shares),
  };
  if (nesting.type === 'workflow_agent') return { ...context, nestingType: 'workflow_agent', toolCallId: undefined };
  return {
    ...context,
    toolCallId: nesting.toolCallId,
    workspace: `${parent.workspace}/subagents/${spec.name}`,
    stream: parent.stream === 'none' ? 'none' : nesting.stream,
    nestingType: 'agent_tool',
  };
}

/**
 * A child's limits: the parent's, with the child agent's own `limits` on top. A step budget belongs to the agent that
 * takes the steps: the child's own (`maxSteps`, else `limits.maxSteps`) when it has one; else what its parent hands
 * down. A workflow agent takes no steps, so its step limit (its spec's, or its run's) is there for its sub-agents and
 * is handed down; an LLM agent's step limit is its own, so the agents it calls as tools start from the default. Never
 * what is left of the parent's steps. The depth limit stays the tree's, and so does the token budget: the child gets
 * what is left after `spentTokens` (its share, when `shares` children run at once), lowered further by its own limit;
 * the cost budget too (the parent's, lowered by the child's own).
 * (The child applies its context's limits over its spec's, so its own step budget has to be set here.)
 */
export function childLimits(
  parent: RunLimits,
  spec: AnyAgentSpec,
  nesting: Nesting['type'],
  spentTokens = 0,
  shares = 1,
): RunLimits {
  const own = Object.fromEntries(Object.entries(spec.limits ?? {}).filter(([, v]) => v !== undefined));
  const ownSteps = (isWorkflowAgent(spec) ? undefined : spec.maxSteps) ?? spec.limits?.maxSteps;
  const handedDown = nesting === 'workflow_agent' ? parent.maxSteps : resolveLimits().maxSteps;
  return resolveLimits({
    ...parent,
    ...own,
    maxSteps: ownSteps ?? handedDown,
    maxDepth: parent.maxDepth,
    ...childTokenLimit(parent, spec.limits?.maxTotalTokens, spentTokens, shares),
    ...childCostLimit(parent.maxCostUsd, spec.limits?.maxCostUsd),
  });
}

/**
 * The tree's cost budget as a child checks it (against the whole tree's spend): the parent's, or the child agent's own
 * when lower, so no agent deeper in the tree can spend past the root's. (Only runs since the cost budgets have one.)
 */
function childCostLimit(parent: number | undefined, own: number | undefined): Partial<RunLimits> {
  const limits = [parent, own].filter((n): n is number => n !== undefined);
  return limits.length ? { maxCostUsd: Math.min(...limits) } : {};
}

/**
 * What is left of a run's token budget after `spent` tokens, for one of `shares` children running at the same time
 * (undefined: no budget). Siblings that run in parallel split what is left evenly, so together they cannot spend
 * more than the tree has. Never below 1: a child started with nothing left stops after its first model call
 * instead of running without a limit.
 */
export function tokensLeft(limits: RunLimits, spent: number, shares = 1): number | undefined {
  return limits.maxTotalTokens === undefined
    ? undefined
    : Math.max(1, Math.floor((limits.maxTotalTokens - spent) / Math.max(1, shares)));
}

/**
 * A child's token limit: what is left of the parent's budget (its share of it), lowered by its own; `{}` when neither
 * has one.
 */
function childTokenLimit(
  parent: RunLimits,
  own: number | undefined,
  spent: number,
  shares: number,
): { maxTotalTokens?: number } {
  const limits = [tokensLeft(parent, spent, shares), own].filter((n): n is number => n !== undefined);
  return limits.length ? { maxTotalTokens: Math.min(...limits) } : {};
}

/**
 * The memo of a nested run: the bridge scopes it to its tenant, and finds through it where its events are (its own
 * log, or its root's).
 */
export function nestedRunMemo(child: RunContext, agent: string): RunMemo {
  return { tenant: child.tenant, agent, rootRunId: child.rootRunId, ...(child.ownLogs ? { ownLog: true } : {}) };
}

/**
 * Longest child workflow id Agio starts: ids nest (`<root>/tool/3-call_x/tool/5-call_y`), and Temporal on PostgreSQL
 * keeps a workflow id in 255 characters.
 */
export const MAX_CHILD_ID_CHARS = 200;

/** The patch under which a sub-agent's id longer than {@link MAX_CHILD_ID_CHARS} is bounded (see boundedChildId). */
export const BOUNDED_CHILD_IDS_PATCH = 'agio-bounded-child-ids';

/**
 * A child id within {@link MAX_CHILD_ID_CHARS}: unchanged when short enough, else its head (which keeps the root's id,
 * so a root's readers still find it by prefix) and a hash of the whole id.
 */
export function boundedChildId(id: string): string {
  if (id.length <= MAX_CHILD_ID_CHARS) return id;
  const hash = fnv1a64(id);
  return `${id.slice(0, MAX_CHILD_ID_CHARS - hash.length - 1)}~${hash}`;
}

/** FNV-1a, 64 bits, of a string's UTF-16 code units, as 16 hex digits (deterministic: workflow code has no crypto). */
function fnv1a64(text: string): string {
  const mask = (1n << 64n) - 1n;
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) hash = ((hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & mask;
  return hash.toString(16).padStart(16, '0');
}
