// Tasks are runs (docs/ARCHITECTURE.md, "A2A"): a task id is a root run's id, a context id its session. This is the
// one place the A2A server reaches runs, through AgioClient and RunHandle: which run a caller's task is (its tenant and
// this agent only; another's answers as missing), its events, its pending approvals, and its snapshot as a Task.
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { AgioClient, RunHandle } from '../../client/agio-client';
import type { RunStatus } from '../../common';
import type { PendingApproval } from '../../common/approval-inbox';
import type { A2ACaller } from './caller';
import { agentMessage, approvalsMessage, outputArtifact, statusOf, taskOf, textPart } from './task-view';

/** A task id: a root run's id as this server makes them (the SDK's UUIDs) or Agio's own (`run-<uuid>`). */
export const TASK_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** How deep, and how many runs per level, a task's waiting calls are looked for. */
const MAX_PENDING_DEPTH = 6;
const MAX_PENDING_RUNS = 32;

/** The fields of a run's event the A2A server reads. */
export interface RunEvent {
  type: string;
  runId: string;
  data?: unknown;
}

/** A root run's events from its start, its nested runs' included, until its terminal event or `signal`. */
export type RunEventSource = (tenant: string, runId: string, signal: AbortSignal) => AsyncIterable<RunEvent>;

/** A task's run, found for a caller. */
export interface TaskRun {
  handle: RunHandle;
  status: RunStatus;
}

/** Runs as tasks of one agent. */
export class RunTasks {
  constructor(
    readonly agio: AgioClient,
    readonly agent: string,
    private readonly source?: RunEventSource,
  ) {}

  /** The run of a task: a root run of this agent in the caller's tenant, else undefined (exactly like none). */
  async runOf(caller: A2ACaller, taskId: string): Promise<TaskRun | undefined> {
    if (!TASK_ID.test(taskId)) return undefined;
    const handle = this.agio.getHandle(taskId);
    const run = await handle.describe({ tenant: caller.tenant }).catch(() => undefined);
    if (!run || run.agent !== this.agent || run.rootRunId !== taskId) return undefined;
    return { handle, status: run.status };
  }

  /** The run's events from its start (the bridge's shared reader when it gave one). */
  events(caller: A2ACaller, runId: string, signal: AbortSignal): AsyncIterable<RunEvent> {
    return this.source ? this.source(caller.tenant, runId, signal) : this.agio.getHandle(runId).stream({ signal });
  }

  /** The run's session (its A2A context; the run itself for a run without one) and its input, from RUN_STARTED. */
  async startOf(caller: A2ACaller, runId: string): Promise<{ contextId: string; input?: string }> {
    const stop = new AbortController();
    try {
      for await (const event of this.events(caller, runId, stop.signal)) {
        if (event.type !== 'RUN_STARTED' || event.runId !== runId) continue;
        const data = (event.data ?? {}) as { sessionId?: string; input?: string };
        return { contextId: data.sessionId ?? runId, ...(data.input ? { input: data.input } : {}) };
      }
    } finally {
      stop.abort();
    }
    return { contextId: runId };
  }

  /** The tool calls waiting for a decision in the run and the runs nested in it now (each asked, level by level). */
  async pending(handle: RunHandle): Promise<PendingApproval[]> {
    const found: PendingApproval[] = [];
    let level = [handle];
    for (let depth = 0; level.length && depth < MAX_PENDING_DEPTH; depth++) {
      const states = await Promise.all(level.map((h) => h.state().catch(() => undefined)));
      found.push(...states.flatMap((s) => s?.pendingApprovals ?? []));
      level = states
        .flatMap((s) => s?.children ?? [])
        .slice(0, MAX_PENDING_RUNS)
        .map((id) => this.agio.getHandle(id));
    }
    return found;
  }

  /** The task as the run is now; undefined when the caller has no such task. */
  async snapshot(caller: A2ACaller, taskId: string): Promise<Task | undefined> {
    const run = await this.runOf(caller, taskId);
    if (!run) return undefined;
    const { contextId, input } = await this.startOf(caller, taskId);
    const history: Message[] = input ? [userMessage(taskId, contextId, input)] : [];
    const say = (id: string, text: string) => agentMessage(taskId, contextId, `${taskId}:${id}`, [textPart(text)]);
    switch (run.status) {
      case 'running':
      case 'continued_as_new': {
        const pending = await this.pending(run.handle);
        return pending.length
          ? taskOf(
              taskId,
              contextId,
              statusOf(TaskState.TASK_STATE_INPUT_REQUIRED, approvalsMessage(taskId, contextId, pending)),
              [],
              history,
            )
          : taskOf(taskId, contextId, statusOf(TaskState.TASK_STATE_WORKING), [], history);
      }
      case 'completed': {
        const out = await run.handle.result();
        const answer = say('answer', out.response);
        return taskOf(
          taskId,
          contextId,
          statusOf(TaskState.TASK_STATE_COMPLETED, answer),
          [outputArtifact(out.response, out.output)],
          [...history, answer],
        );
      }
      case 'cancelled':
        return taskOf(
          taskId,
          contextId,
          statusOf(TaskState.TASK_STATE_CANCELED, say('cancelled', 'The run was cancelled.')),
          [],
          history,
        );
      default: {
        const error = await run.handle.result().then(
          () => `the run ${run.status}`,
          (err: Error) => err.message,
        );
        return taskOf(taskId, contextId, statusOf(TaskState.TASK_STATE_FAILED, say('failed', error)), [], history);
      }
    }
  }
}

/** The user's message a run started with (its input as RUN_STARTED previews it). */
function userMessage(taskId: string, contextId: string, text: string): Message {
  return { ...agentMessage(taskId, contextId, `${taskId}:input`, [textPart(text)]), role: Role.ROLE_USER };
}
