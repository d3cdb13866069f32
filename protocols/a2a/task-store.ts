// The SDK's TaskStore over Agio's runs: a task is loaded from its run every time a request first needs it, and what
// the SDK saves while it handles that request is kept with the request only (in its call context), so nothing a
// restarted bridge would need lives in memory: the runs are the store.
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { RunStatus } from '../../common';
import { callerOf } from './caller';
import type { RunTasks } from './run-tasks';
import { statusOf, taskOf } from './task-view';

const cacheKey = (taskId: string) => `agio.task:${taskId}`;

/** The task state of a run's status as a listing knows it (a running run's approvals are not asked there). */
const LISTED_STATE: Record<RunStatus, TaskState> = {
  running: TaskState.TASK_STATE_WORKING,
  continued_as_new: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  terminated: TaskState.TASK_STATE_FAILED,
  timed_out: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
};

/** Tasks of one agent, read from its runs. */
export class RunTaskStore implements TaskStore {
  constructor(private readonly tasks: RunTasks) {}

  /** Keeps the request's copy (the run keeps the task itself). */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    context.state.set(cacheKey(task.id), structuredClone(task));
  }

  /** The request's copy, or the task as its run is now (undefined: no such task of this caller and agent). */
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const kept = context.state.get(cacheKey(taskId)) as Task | undefined;
    if (kept) return structuredClone(kept);
    const task = await this.tasks.snapshot(callerOf(context), taskId);
    if (task) context.state.set(cacheKey(taskId), structuredClone(task));
    return task;
  }

  /**
   * The caller's runs of this agent, newest first, with the state their status says (context and status filters
   * refused).
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    if (params.contextId || params.status || params.statusTimestampAfter)
      throw new UnsupportedOperationError('ListTasks filters by contextId, status or time are not supported here');
    const caller = callerOf(context);
    const pageSize = params.pageSize ?? 50;
    const page = await this.tasks.agio.list({
      tenant: caller.tenant,
      agent: this.tasks.agent,
      pageSize,
      ...(params.pageToken ? { pageToken: params.pageToken } : {}),
    });
    return {
      tasks: page.runs.map((r) => taskOf(r.runId, r.runId, statusOf(LISTED_STATE[r.status]), [], [])),
      nextPageToken: page.nextPageToken ?? '',
      pageSize,
      totalSize: page.runs.length,
    };
  }
}
