// AgentTool: a nested agent run as a child workflow with id `${parent}/tool/${toolCallId}`. Guards run first;
// any failure, timeout or cancellation of the child folds into an `unavailable` tool result for the parent.
import { CancellationScope, ChildWorkflowFailure, TerminatedFailure, TimeoutFailure, executeChild, isCancellation } from '@temporalio/workflow';
import type { AgentToolSpec, ChatMessage, RunContext, RunOutput, Step, ToolCall } from '../common';
import { AgentToolArgs, childAgentSpec, childContext, delegationMessages, guardNesting } from './delegation';
import { eventBase, type Emitter } from './emitter';
import { failureMessage } from './tool-calls';

/** Runs one agent-tool call and returns its tool step (usage of the child included in `step.usage`). */
export async function runAgentTool(
  context: RunContext,
  events: Emitter,
  tool: AgentToolSpec,
  call: ToolCall,
  base: Omit<Step, 'content'>,
  parentMessages: ChatMessage[],
): Promise<Step> {
  const error = (message: string): Step => ({ ...base, content: `Error: ${message}`, isError: true });
  let raw: unknown;
  try {
    raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch (err) {
    return error(`arguments for "${call.name}" are not valid JSON (${(err as Error).message})`);
  }
  const args = AgentToolArgs.safeParse(raw);
  if (!args.success) return error(`invalid arguments for "${call.name}": ${args.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`);
  const refused = guardNesting(context, tool.agent.name);
  if (refused) return error(refused);

  const childRunId = `${context.runId}/tool/${call.id}`;
  const child = childContext(context, tool, call.id, childRunId);
  const startedAt = Date.now();
  try {
    const output: RunOutput = await executeChild('agentRun', {
      workflowId: childRunId,
      args: [{ agent: childAgentSpec(tool), input: delegationMessages(args.data, parentMessages), context: child }],
      ...(tool.timeoutMs ? { workflowExecutionTimeout: tool.timeoutMs } : {}),
    });
    return { ...base, content: output.response, usage: output.usage, metrics: { startedAt, durationMs: Date.now() - startedAt }, metadata: { childRunId, terminationReason: output.terminationReason } };
  } catch (err) {
    // Our own cancellation (the parent is being cancelled) propagates; a child's own failure folds.
    if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
    const unavailable = { unavailable: true, agent: tool.agent.name, error: failureMessage(err) };
    const silent = silentEnd(err);
    if (silent) {
      // The server ended the child without running its code: report its end for it, so no reader waits forever.
      await events.emit({ type: 'RUN_FAILED', data: { error: { type: silent, message: unavailable.error }, reportedBy: context.runId } }, eventBase(child, tool.agent.name, 'agent_tool'));
    }
    return { ...base, content: JSON.stringify(unavailable), isError: true, metrics: { startedAt, durationMs: Date.now() - startedAt }, metadata: { childRunId } };
  }
}

/** How a child ended without publishing its own terminal event (timed out or terminated), if it did. */
function silentEnd(err: unknown): 'TimeoutFailure' | 'TerminatedFailure' | undefined {
  if (!(err instanceof ChildWorkflowFailure)) return undefined;
  if (err.cause instanceof TimeoutFailure) return 'TimeoutFailure';
  if (err.cause instanceof TerminatedFailure) return 'TerminatedFailure';
  return undefined;
}
