// The SDK's AgentExecutor over Agio runs: a new task starts a run whose id is the task's and whose session is its
// context; a continued task (its decision or message already sent by the request handler) is followed from where it
// is. Either way the executor publishes the task, then what its run does until it ends or waits for a decision.
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { callerOf, type A2ACaller } from './caller';
import { inputOf } from './client-input';
import { followTask } from './follow-task';
import type { RunTasks } from './run-tasks';
import { statusOf, taskOf } from './task-view';

/** Starts a task's run (the bridge's door: its quotas, then AgioClient.start). */
export type StartTaskRun = (
  caller: A2ACaller,
  run: { runId: string; sessionId: string; input: string },
) => Promise<void>;

/** Runs tasks as Agio runs. */
export class RunExecutor implements AgentExecutor {
  constructor(
    private readonly tasks: RunTasks,
    private readonly startRun: StartTaskRun,
    /** Aborts when the request that runs this executor ends (nobody hears the rest; webhooks still deliver). */
    private readonly signal: AbortSignal,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const caller = callerOf(request.context);
    const { taskId, contextId } = request;
    let task: Task;
    if (request.task) {
      task = { ...request.task, status: statusOf(TaskState.TASK_STATE_WORKING) };
    } else {
      await this.startRun(caller, { runId: taskId, sessionId: contextId, input: inputOf(request.userMessage) });
      task = taskOf(taskId, contextId, statusOf(TaskState.TASK_STATE_SUBMITTED), [], [request.userMessage]);
    }
    bus.publish(AgentEvent.task(task));
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: statusOf(TaskState.TASK_STATE_WORKING),
        metadata: undefined,
      }),
    );
    for await (const event of followTask(this.tasks, caller, { id: taskId, contextId }, this.signal))
      bus.publish(event);
  }

  /** Unused: the request handler cancels a task's run itself (tasks/cancel works without an open request). */
  async cancelTask(): Promise<void> {}
}
