// Context isolation for nested agents (as the OpenAI Agents SDK and AgentScope isolate sub-agents): the child starts
// from a delegation context the parent builds — the task, facts and references the model passed, and at most 4 recent
// relevant messages — never from the parent's conversation. Pure and deterministic.
import { z } from 'zod';
import type { ChatMessage, RunContext } from '../../common';

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
    .map(
      (m) =>
        `- ${m.role}: ${m.content!.length > MAX_ITEM_CHARS ? `${m.content!.slice(0, MAX_ITEM_CHARS)}…` : m.content}`,
    );
  const parts = [`Task: ${args.task}`];
  if (args.context) parts.push(`Context: ${args.context}`);
  if (args.references?.length) parts.push(`References:\n${args.references.map((r) => `- ${r}`).join('\n')}`);
  if (recent.length) parts.push(`Recent messages of the delegating conversation:\n${recent.join('\n')}`);
  return [{ role: 'user', content: parts.join('\n\n') }];
}
