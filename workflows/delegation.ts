// Context isolation for nested agents (seeds 003 and 004): the child starts from a delegation context the
// parent builds — the task, facts and references the model passed, and at most 4 recent relevant messages —
// never from the parent's conversation. Pure and deterministic.
import { z } from 'zod';
import { resolveLimits, splitTools, type AgentSpec, type AgentToolSpec, type ChatMessage, type RunContext } from '../common';

/** What the model passes when it calls an agent tool. */
export const AgentToolArgs = z.object({
  task: z.string().min(1, 'task must say what the agent should do'),
  context: z.string().optional(),
  references: z.array(z.string()).optional(),
});
/** What the model passes when it calls an agent tool. */
export type AgentToolArgs = z.infer<typeof AgentToolArgs>;

/** Recent parent messages handed to the child: user and assistant text only, newest last. */
export const MAX_DELEGATED_ITEMS = 4;
const MAX_ITEM_CHARS = 1000;

/** Why a nested call may not start (depth limit or a cycle), or undefined when it may. */
export function guardNesting(context: RunContext, child: string): string | undefined {
  if (context.depth + 1 > context.limits.maxDepth) {
    return `agent "${child}" cannot be called: nesting depth ${context.depth + 1} exceeds the limit of ${context.limits.maxDepth}`;
  }
  if (context.lineage.includes(child)) {
    return `agent "${child}" cannot be called: it would form a cycle (${[...context.lineage, child].join(' → ')})`;
  }
  return undefined;
}

/** The child's first user message: task, facts, references and recent relevant items of the parent. */
export function delegationMessages(args: AgentToolArgs, parentMessages: ChatMessage[]): ChatMessage[] {
  const recent = parentMessages
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content && !m.toolCalls?.length)
    .slice(-MAX_DELEGATED_ITEMS)
    .map((m) => `- ${m.role}: ${m.content!.length > MAX_ITEM_CHARS ? `${m.content!.slice(0, MAX_ITEM_CHARS)}…` : m.content}`);
  const parts = [`Task: ${args.task}`];
  if (args.context) parts.push(`Context: ${args.context}`);
  if (args.references?.length) parts.push(`References:\n${args.references.map((r) => `- ${r}`).join('\n')}`);
  if (recent.length) parts.push(`Recent messages of the delegating conversation:\n${recent.join('\n')}`);
  return [{ role: 'user', content: parts.join('\n\n') }];
}

/** The child's spec with its toolkit cut down to the allowlist (agent tools count by name too). */
export function childAgentSpec(tool: AgentToolSpec): AgentSpec {
  if (!tool.toolsAllowlist) return tool.agent;
  const allowed = new Set(tool.toolsAllowlist);
  return { ...tool.agent, tools: tool.agent.tools.filter((t) => allowed.has(typeof t === 'string' ? t : t.name)) };
}

/**
 * What is left of a run's token budget after `spent` tokens, for one of `shares` children running at the same time
 * (undefined: no budget). Siblings that run in parallel split what is left evenly, so together they cannot spend
 * more than the tree has. Never below 1: a child started with nothing left stops after its first model call
 * instead of running without a limit.
 */
export function tokensLeft(limits: RunContext['limits'], spent: number, shares = 1): number | undefined {
  return limits.maxTotalTokens === undefined ? undefined : Math.max(1, Math.floor((limits.maxTotalTokens - spent) / Math.max(1, shares)));
}

/**
 * A child's token limit (agent tool or sub-agent): what is left of the parent's budget (its share of it), lowered
 * further by the child's own limit; `{}` when neither has one.
 */
export function childTokenLimit(parent: RunContext['limits'], own: number | undefined, spent: number, shares: number): { maxTotalTokens?: number } {
  const limits = [tokensLeft(parent, spent, shares), own].filter((n): n is number => n !== undefined);
  return limits.length ? { maxTotalTokens: Math.min(...limits) } : {};
}

/**
 * The child's context: same root and stream; one level deeper; its own namespaced workspace. Limits are the
 * parent's with the child agent's own on top (its `limits`, and its `maxSteps` or the default — a step budget
 * belongs to an agent, never to its caller); the depth limit stays the tree's, and the token budget is the tree's
 * too: the child gets what the parent has left after `spentTokens` (its share of it, when `shares` agents run at
 * once), lowered further by its own limit.
 */
export function childContext(parent: RunContext, tool: AgentToolSpec, toolCallId: string, childRunId: string, spentTokens = 0, shares = 1): RunContext {
  const own = tool.agent;
  const ownLimits = Object.fromEntries(Object.entries(own.limits ?? {}).filter(([, v]) => v !== undefined));
  const limits = resolveLimits({
    ...parent.limits,
    ...ownLimits,
    maxSteps: own.maxSteps ?? own.limits?.maxSteps ?? resolveLimits().maxSteps,
    maxDepth: parent.limits.maxDepth,
    ...childTokenLimit(parent.limits, own.limits?.maxTotalTokens, spentTokens, shares),
  });
  return {
    ...parent,
    limits,
    runId: childRunId,
    parentRunId: parent.runId,
    depth: parent.depth + 1,
    lineage: [...parent.lineage, tool.agent.name],
    toolCallId,
    workspace: `${parent.workspace}/subagents/${tool.agent.name}`,
    stream: parent.stream === 'none' ? 'none' : tool.stream,
    nestingType: 'agent_tool',
  };
}

/** The memo of a nested run: the bridge scopes it to its tenant and finds its root's event log through it. */
export function nestedRunMemo(child: RunContext, agent: string): { tenant: string; agent: string; rootRunId: string } {
  return { tenant: child.tenant, agent, rootRunId: child.rootRunId };
}

/** Names of every agent tool in a spec (for the model's tool list). */
export function agentToolNames(spec: AgentSpec): string[] {
  return splitTools(spec.tools).agentTools.map((t) => t.name);
}
