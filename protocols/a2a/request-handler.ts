// The A2A request handler of one agent for one request: the SDK's DefaultRequestHandler (message/send and stream,
// tasks/get and list, push configs) over Agio's task store and executor, with what only Agio can do put before it: a
// message to an existing task is its decision (input-required) or a message to its running run, sent before the SDK
// follows the task; tasks/cancel cancels the run; tasks/resubscribe follows the run from wherever it is, on any bridge.
import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { A2AError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  type A2ARequestHandler,
  type AgentExecutionEvent,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { callerOf } from './caller';
import { checkMessage, decisionOf, inputOf } from './client-input';
import { RunExecutor, type StartTaskRun } from './executor';
import { followTask } from './follow-task';
import { workersDeliver, type WebhookPushConfigs } from './push-configs';
import type { RunTasks } from './run-tasks';
import { RunTaskStore } from './task-store';
import { isTerminal, statusOf } from './task-view';

/** Longest a cancel waits for the run to end before answering the task as it is. */
const CANCEL_WAIT_MS = 10_000;

/** What one request's handler is made of. */
export interface RequestHandlerParts {
  card: AgentCard;
  tasks: RunTasks;
  startRun: StartTaskRun;
  /** Present when the bridge has webhooks (stores). */
  pushConfigs?: WebhookPushConfigs;
  /** Aborts when the request ends. */
  signal: AbortSignal;
}

/** A2A requests to one agent, answered from its runs. */
export class AgioRequestHandler implements A2ARequestHandler {
  private readonly sdk: DefaultRequestHandler;
  private readonly store: RunTaskStore;

  constructor(private readonly parts: RequestHandlerParts) {
    this.store = new RunTaskStore(parts.tasks);
    const executor = new RunExecutor(parts.tasks, parts.startRun, parts.signal);
    this.sdk = new DefaultRequestHandler(
      parts.card,
      this.store,
      executor,
      new DefaultExecutionEventBusManager(),
      parts.pushConfigs,
      parts.pushConfigs ? workersDeliver : undefined,
    );
  }

  getAgentCard = () => this.sdk.getAgentCard();
  getAuthenticatedExtendedAgentCard: A2ARequestHandler['getAuthenticatedExtendedAgentCard'] = (p, c) =>
    this.sdk.getAuthenticatedExtendedAgentCard(p, c);
  getTask: A2ARequestHandler['getTask'] = (p, c) => this.sdk.getTask(p, c);
  listTasks: A2ARequestHandler['listTasks'] = (p, c) => this.sdk.listTasks(p, c);
  createTaskPushNotificationConfig: A2ARequestHandler['createTaskPushNotificationConfig'] = (p, c) =>
    this.sdk.createTaskPushNotificationConfig(p, c);
  getTaskPushNotificationConfig: A2ARequestHandler['getTaskPushNotificationConfig'] = (p, c) =>
    this.sdk.getTaskPushNotificationConfig(p, c);
  listTaskPushNotificationConfigs: A2ARequestHandler['listTaskPushNotificationConfigs'] = (p, c) =>
    this.sdk.listTaskPushNotificationConfigs(p, c);
  deleteTaskPushNotificationConfig: A2ARequestHandler['deleteTaskPushNotificationConfig'] = (p, c) =>
    this.sdk.deleteTaskPushNotificationConfig(p, c);

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    await this.continueTask(params, context);
    return this.sdk.sendMessage(params, context);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    await this.continueTask(params, context);
    yield* this.sdk.sendMessageStream(params, context);
  }

  /**
   * Checks the message; for an existing task, sends the decision it waits for or the message to its running run (so
   * a refusal is this request's error, not a failed task), and keeps the task as working for the SDK.
   */
  private async continueTask(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const message = checkMessage(params.message);
    if (!message.taskId) return;
    const caller = callerOf(context);
    const task = await this.store.load(message.taskId, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${message.taskId}`);
    if (isTerminal(task.status?.state))
      throw new UnsupportedOperationError(`task ${task.id} has ended and cannot be continued`);
    const handle = this.parts.tasks.agio.getHandle(task.id);
    try {
      if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        if (!caller.scopes.includes('decide'))
          throw new UnsupportedOperationError('this token lacks the "decide" scope: it cannot answer an approval');
        const { call, decision, message: note } = decisionOf(message, await this.parts.tasks.pending(handle));
        const who = { by: caller.identity, roles: caller.roles, ...(call.binding ? { binding: call.binding } : {}) };
        if (decision === 'approve') await handle.approve(call.toolCallId, who);
        else await handle.deny(call.toolCallId, { ...who, ...(note ? { message: note } : {}) });
      } else {
        await handle.message(inputOf(message), { by: caller.identity });
      }
    } catch (err) {
      if (err instanceof A2AError) throw err;
      throw new UnsupportedOperationError(`task ${task.id} did not take the message: ${(err as Error).message}`);
    }
    await this.store.save({ ...task, status: statusOf(TaskState.TASK_STATE_WORKING) }, context);
  }

  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    const caller = callerOf(context);
    const run = await this.parts.tasks.runOf(caller, params.id);
    if (!run) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (run.status === 'running') {
      await run.handle.cancel();
      const closed = run.handle.result().catch(() => undefined);
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref())]);
    }
    const task = await this.parts.tasks.snapshot(caller, params.id);
    if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED && isTerminal(task.status?.state))
      throw new TaskNotCancelableError(`task ${params.id} has already ended`);
    return task;
  }

  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const caller = callerOf(context);
    const task = await this.parts.tasks.snapshot(caller, params.id);
    if (!task) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (isTerminal(task.status?.state))
      throw new UnsupportedOperationError(`task ${params.id} has ended: read it with GetTask`);
    yield { payload: { $case: 'task', value: task } };
    if (task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) return;
    const followed = { id: task.id, contextId: task.contextId };
    for await (const event of followTask(this.parts.tasks, caller, followed, this.parts.signal))
      yield streamResponseOf(event);
  }
}

/** An executor event as a stream response. */
function streamResponseOf(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { payload: { $case: 'task', value: event.data } };
    case 'message':
      return { payload: { $case: 'message', value: event.data } };
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: event.data } };
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: event.data } };
  }
}
