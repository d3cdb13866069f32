// Follows a task's run and says what A2A should hear of it: an input-required status while a tool call of the tree
// waits for a decision (then the follow ends: the client continues the task with its decision), the output artifact
// and a completed status, or a failed or canceled one. The run's log is read from its start; whether a call still
// waits is asked of the runs themselves, so calls decided long ago never read as waiting.
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { TaskState, type Message } from '@a2a-js/sdk';
import type { A2ACaller } from './caller';
import type { RunTasks } from './run-tasks';
import { agentMessage, approvalsMessage, outputArtifact, statusOf, textPart } from './task-view';

/** The task being followed. */
export interface FollowedTask {
  id: string;
  contextId: string;
}

/** An error's message from an event's data (`{ error: { message } }`). */
function errorText(data: unknown, fallback: string): string {
  const message = (data as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' && message ? message : fallback;
}

/**
 * The A2A events of a task's run from now on, ending after its terminal status or an input-required one; ends early
 * when `signal` aborts (the client left).
 */
export async function* followTask(
  tasks: RunTasks,
  caller: A2ACaller,
  task: FollowedTask,
  signal: AbortSignal,
): AsyncGenerator<AgentExecutionEvent> {
  const status = (state: TaskState, message?: Message) =>
    AgentEvent.statusUpdate({
      taskId: task.id,
      contextId: task.contextId,
      status: statusOf(state, message),
      metadata: undefined,
    });
  const say = (id: string, text: string) => agentMessage(task.id, task.contextId, `${task.id}:${id}`, [textPart(text)]);
  const handle = tasks.agio.getHandle(task.id);
  for await (const event of tasks.events(caller, task.id, signal)) {
    if (event.type === 'TOOL_AUTH_REQUIRED' || event.type === 'TOOL_AUTH_EXPIRED') {
      const pending = await tasks.pending(handle);
      if (pending.length) {
        yield status(TaskState.TASK_STATE_INPUT_REQUIRED, approvalsMessage(task.id, task.contextId, pending));
        return;
      }
      continue;
    }
    if (event.runId !== task.id) continue;
    if (event.type === 'RUN_COMPLETED') {
      const response = (event.data as { response?: string } | undefined)?.response ?? '';
      const out = await handle.result().catch(() => undefined);
      yield AgentEvent.artifactUpdate({
        taskId: task.id,
        contextId: task.contextId,
        artifact: outputArtifact(out?.response ?? response, out?.output),
        append: false,
        lastChunk: true,
        metadata: undefined,
      });
      yield status(TaskState.TASK_STATE_COMPLETED, say('answer', out?.response ?? response));
      return;
    }
    if (event.type === 'RUN_FAILED') {
      yield status(TaskState.TASK_STATE_FAILED, say('failed', errorText(event.data, 'the run failed')));
      return;
    }
    if (event.type === 'RUN_CANCELLED') {
      yield status(TaskState.TASK_STATE_CANCELED, say('cancelled', 'The run was cancelled.'));
      return;
    }
  }
}
