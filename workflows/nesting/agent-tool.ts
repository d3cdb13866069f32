// AgentTool: a nested agent run as a child workflow with id `${parent}/tool/${stepIndex}-${toolCallId}`. Guards run
// first; any failure, timeout or cancellation of the child folds into an `unavailable` tool result for the parent. The
// parent keeps the child's timeoutMs with a timer that stands still while the child waits for a person or is paused
// (active-deadline.ts), and cancels a child that passes it, so the child ends cleanly.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
  isCancellation,
  patched,
  sleep,
  startChild,
} from '@temporalio/workflow';
import {
  Usage,
  childAgentSpec,
  type AgentToolSpec,
  type ChatMessage,
  type RunContext,
  type RunOutput,
  type Step,
  type ToolCall,
} from '../../common';
import { boundedChildId, childContext, nestedRunMemo } from './child-context';
import { AgentToolArgs, delegationMessages, guardNesting } from './delegation';
import { ACTIVE_DEADLINE_PATCH, CANCEL_GRACE_MS, withActiveDeadline, type WaitTracker } from './active-deadline';
import type { RunControl } from '../lifecycle/control';
import { eventBase, type Emitter } from '../events/emitter';
import { failureMessage } from '../lifecycle/run-errors';

/** One call of an agent tool, with what the child needs from its parent. */
export interface AgentToolCall {
  context: RunContext;
  /** The parent's emitter: the parent reports the end of a child the server ended without running its code. */
  events: Emitter;
  tool: AgentToolSpec;
  call: ToolCall;
  /** The tool step's fields but its content. */
  base: Omit<Step, 'content'>;
  /** The parent's conversation so far: the child's delegation context is built from it. */
  parentMessages: ChatMessage[];
  /** Forwards pause and resume to the child while it runs. */
  control?: RunControl;
  /** Tells whether the child waits (for a person, or paused): its deadline does not count that time. */
  waits?: WaitTracker;
  /** Tokens the parent's tree has spent so far (the child gets what is left of the budget). */
  spentTokens?: number;
  /** Agents called in parallel in the same turn, this one included: they split what is left. */
  shares?: number;
}

/** Runs one agent-tool call and returns its tool step (usage of the child included in `step.usage`). */
export async function runAgentTool(agentCall: AgentToolCall): Promise<Step> {
  const { context, events, tool, call, base, parentMessages, control, waits, spentTokens, shares } = agentCall;
  const error = (message: string): Step => ({ ...base, content: `Error: ${message}`, isError: true });
  let raw: unknown;
  try {
    raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch (err) {
    return error(`arguments for "${call.name}" are not valid JSON (${(err as Error).message})`);
  }
  const args = AgentToolArgs.safeParse(raw);
  if (!args.success)
    return error(
      `invalid arguments for "${call.name}": ${args.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`,
    );
  const refused = guardNesting(context, tool.agent.name);
  if (refused) return error(refused);

  // Providers may repeat call ids from turn to turn (`call_0`): the tool step's index keeps each child's id its own.
  const childRunId = patched(AGENT_TOOL_STEP_IDS_PATCH)
    ? boundedChildId(`${context.runId}/tool/${base.index}-${call.id}`)
    : `${context.runId}/tool/${call.id}`;
  const nesting = { type: 'agent_tool', toolCallId: call.id, stream: tool.stream } as const;
  const child = childContext(context, { runId: childRunId, spec: tool.agent, nesting, spentTokens, shares });
  const startedAt = Date.now();
  // The parent keeps the deadline (runs started before the patch left it to the server, which ends a child silently),
  // counting only the child's active time (runs started before ACTIVE_DEADLINE_PATCH counted its waits too).
  const deadline = tool.timeoutMs !== undefined && patched(AGENT_TOOL_DEADLINE_PATCH) ? tool.timeoutMs : undefined;
  const active = deadline !== undefined && patched(ACTIVE_DEADLINE_PATCH);
  let timedOut = false;
  let gaveUp = false;
  const runChild = async (): Promise<RunOutput> => {
    const handle = await startChild('agentRun', {
      workflowId: childRunId,
      memo: nestedRunMemo(child, tool.agent.name),
      args: [{ agent: childAgentSpec(tool), input: delegationMessages(args.data, parentMessages), context: child }],
      ...(tool.timeoutMs && !active
        ? { workflowExecutionTimeout: deadline !== undefined ? deadline + CANCEL_GRACE_MS : tool.timeoutMs }
        : {}),
    });
    // Through the run's control, pause and resume reach the child while it runs.
    return control ? await control.child<RunOutput>(handle as never) : await handle.result();
  };
  try {
    const onTimeout = () => (timedOut = true);
    const output =
      deadline === undefined
        ? await runChild()
        : active
          ? await withActiveDeadline(
              deadline,
              runChild,
              () => waits?.childWaiting(childRunId) ?? false,
              onTimeout,
              () => ((gaveUp = true), new Error(`the child did not end within ${CANCEL_GRACE_MS} ms of its cancel`)),
            )
          : await withDeadline(deadline, runChild, onTimeout);
    return {
      ...base,
      content: output.response,
      usage: output.usage,
      metrics: { startedAt, durationMs: Date.now() - startedAt },
      metadata: { childRunId, terminationReason: output.terminationReason },
    };
  } catch (err) {
    // Our own cancellation (the parent is being cancelled) propagates; a child's own failure folds.
    if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
    // A child that did not end after its cancel is left to end with its parent: report its end for it.
    const silent = gaveUp ? 'TimeoutFailure' : silentEnd(err);
    const reason =
      (timedOut || silent === 'TimeoutFailure') && tool.timeoutMs
        ? `timed out: it did not finish within its timeoutMs of ${tool.timeoutMs} ms`
        : failureMessage(err);
    const unavailable = { unavailable: true, agent: tool.agent.name, error: reason };
    if (silent) {
      // The server ended the child without running its code: report its end for it, so no reader waits forever.
      await events.emit(
        {
          type: 'RUN_FAILED',
          data: { error: { type: silent, message: unavailable.error }, reportedBy: context.runId },
        },
        eventBase(child, tool.agent.name, 'agent_tool'),
      );
    }
    const spent = spentUsage(err);
    return {
      ...base,
      content: JSON.stringify(unavailable),
      isError: true,
      ...(spent ? { usage: spent } : {}),
      metrics: { startedAt, durationMs: Date.now() - startedAt },
      metadata: { childRunId },
    };
  }
}

/**
 * The patch under which a parent enforces an agent tool's timeoutMs itself: when its timer fires it cancels the child,
 * which then publishes its own terminal event, records itself and cancels its own children, and the parent waits for
 * that. The child's execution timeout stays as a backstop, {@link CANCEL_GRACE_MS} later, for a child that cannot end
 * (under ACTIVE_DEADLINE_PATCH the parent stops waiting for such a child instead, see withActiveDeadline).
 */
export const AGENT_TOOL_DEADLINE_PATCH = 'agio-agent-tool-deadline';
/**
 * The patch under which an agent tool's child id names the tool step, `<parent>/tool/<step index>-<call id>` (bounded
 * in length, see boundedChildId), instead of `<parent>/tool/<call id>`, which a provider repeating its call ids gave
 * two children of one run.
 */
export const AGENT_TOOL_STEP_IDS_PATCH = 'agio-agent-tool-step-ids';

/** Runs `work` in its own scope and cancels that scope after `ms` (calling `onTimeout` first). */
async function withDeadline<T>(ms: number, work: () => Promise<T>, onTimeout: () => void): Promise<T> {
  const scope = new CancellationScope();
  const timer = new CancellationScope();
  void timer
    .run(() => sleep(ms))
    .then(
      () => {
        onTimeout();
        scope.cancel();
      },
      () => undefined, // the work ended first
    );
  try {
    return await scope.run(work);
  } finally {
    timer.cancel();
  }
}

/**
 * A nested run's failure with the usage it spent attached (its details), so the parent still counts those tokens.
 * Only ApplicationFailures (which fail the workflow) are rewritten; anything else keeps its meaning.
 */
export function withSpentUsage(err: unknown, usage: Usage): unknown {
  if (!(err instanceof ApplicationFailure)) return err;
  return ApplicationFailure.create({
    type: err.type ?? undefined,
    message: err.message,
    nonRetryable: err.nonRetryable ?? undefined,
    details: [{ spentUsage: usage }],
    cause: err.cause,
  });
}

/** The usage a failed child spent, read from the failure {@link withSpentUsage} attached it to. */
function spentUsage(err: unknown): Usage | undefined {
  if (!(err instanceof ChildWorkflowFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const parsed = Usage.safeParse((err.cause.details?.[0] as { spentUsage?: unknown } | undefined)?.spentUsage);
  return parsed.success ? parsed.data : undefined;
}

/** How a child ended without publishing its own terminal event (timed out or terminated), if it did. */
function silentEnd(err: unknown): 'TimeoutFailure' | 'TerminatedFailure' | undefined {
  if (!(err instanceof ChildWorkflowFailure)) return undefined;
  if (err.cause instanceof TimeoutFailure) return 'TimeoutFailure';
  if (err.cause instanceof TerminatedFailure) return 'TerminatedFailure';
  return undefined;
}
