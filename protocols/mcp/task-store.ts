// The MCP SDK's task store, backed by Agio runs: the SDK answers tasks/get, tasks/list and tasks/cancel through it.
// Nothing is stored here: a task is its run (task id = run id), Temporal keeps it, and any bridge answers for it.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { RunTasks, type McpAction } from './run-tasks';
import { runResult } from './run-results';

/** How long tasks/cancel waits for the run to end after cancelling it, so it can answer `cancelled`. */
const CANCEL_SETTLE_MS = 10_000;

/** Refuses an action the caller's token may not take. */
export function requireAction(runs: RunTasks, action: McpAction): void {
  if (!runs.caller.may(action)) throw new McpError(ErrorCode.InvalidRequest, `this token lacks the "${action}" scope`);
}

/** The task store of one caller's request. */
export class RunTaskStore implements TaskStore {
  constructor(private readonly runs: RunTasks) {}

  /** Tasks are made by tools/call starting a run, never through the store. */
  createTask(_params: CreateTaskOptions): Promise<Task> {
    return Promise.reject(new Error('an Agio task is a run: tools/call starts it'));
  }

  async getTask(taskId: string): Promise<Task | null> {
    requireAction(this.runs, 'read');
    const run = await this.runs.find(taskId);
    return run ? this.runs.task(run) : null;
  }

  /** A run's result is Temporal's: nothing to store. */
  storeTaskResult(): Promise<void> {
    return Promise.reject(new Error("an Agio task's result is its run's"));
  }

  async getTaskResult(taskId: string): Promise<Result> {
    requireAction(this.runs, 'read');
    const run = await this.runs.find(taskId);
    if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return runResult(this.runs.agio, run);
  }

  /** Only cancellation comes from a client: the run is cancelled, and the answer waits (a while) for it to end. */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') throw new McpError(ErrorCode.InvalidRequest, `a task's status follows its run`);
    requireAction(this.runs, 'control');
    const run = await this.runs.find(taskId);
    if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    await run.handle.cancel();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      run.handle.result().catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, CANCEL_SETTLE_MS))),
    ]);
    clearTimeout(timer);
  }

  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    requireAction(this.runs, 'read');
    return this.runs.list(cursor);
  }
}
