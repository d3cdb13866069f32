// A caller's runs as MCP tasks (task id = run id): looked up through RunHandle and scoped to the caller's tenant, so
// another tenant's run answers exactly as a missing one. Statuses map onto the task's: running → working, completed,
// cancelled, and every other end (failed, terminated, timed out) → failed.
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import type { AgioClient, RunHandle } from '../../client/agio-client';
import { RunNotFoundError } from '../../client/errors';
import type { RunStatus } from '../../common';
import type { RunStateView } from '../../client/run-state-view';

/**
 * What the caller may do with its runs: read them (tools/list, tasks/get, tasks/result, tasks/list), start, control.
 */
export type McpAction = 'read' | 'start' | 'control';

/** Who speaks through one MCP request: the tenant its runs belong to, and what its token may do. */
export interface McpCaller {
  tenant: string;
  may(action: McpAction): boolean;
}

/** How often a client should ask tasks/get again (ms). */
export const TASK_POLL_INTERVAL_MS = 1000;

/** Run ids are workflow ids: Agio's own (`run-<uuid>`) or nested ones; anything else is not looked up. */
const RUN_ID = /^[A-Za-z0-9._:/-]{1,512}$/;

/** One run of the caller, found. */
export interface FoundRun {
  handle: RunHandle;
  status: RunStatus;
  agent?: string;
  startTime: Date;
  closeTime?: Date;
}

/** The task status of a run status. */
export function taskStatusOf(status: RunStatus): Task['status'] {
  if (status === 'running') return 'working';
  if (status === 'completed' || status === 'cancelled') return status;
  return 'failed';
}

/** What a running run is doing, in a line (the task's statusMessage). */
export function statusLine(state: RunStateView): string {
  const approval = state.pendingApprovals[0];
  if (approval) return `waiting for a person to approve "${approval.tool}" (tool call ${approval.toolCallId})`;
  if (state.paused) return 'paused';
  if (state.modelUnavailable) return 'the model is unavailable; retrying';
  if (state.runningTools?.length) return `running ${state.runningTools.join(', ')}`;
  if (state.currentSubAgent) return `running sub-agent ${state.currentSubAgent}`;
  return state.currentStep !== undefined ? `working on step ${state.currentStep}` : 'working';
}

/** The caller's runs, as tasks. */
export class RunTasks {
  constructor(
    readonly agio: AgioClient,
    readonly caller: McpCaller,
  ) {}

  /** The run if it exists and is the caller's tenant's; undefined otherwise (never says which). */
  async find(runId: string): Promise<FoundRun | undefined> {
    if (!RUN_ID.test(runId)) return undefined;
    const handle = this.agio.getHandle(runId);
    const run = await handle.describe({ tenant: this.caller.tenant }).catch((err: unknown) => {
      if (err instanceof RunNotFoundError) return undefined;
      throw err;
    });
    if (!run) return undefined;
    return { handle, status: run.status, agent: run.agent, startTime: run.startTime, closeTime: run.closeTime };
  }

  /** The run as a task; a running one says what it is doing now. */
  async task(run: FoundRun): Promise<Task> {
    const status = taskStatusOf(run.status);
    const statusMessage =
      status === 'working'
        ? await run.handle.state().then(statusLine, () => 'working')
        : run.status === 'completed' || run.status === 'cancelled'
          ? `the run ${run.status}`
          : `the run ended: ${run.status}`;
    return {
      taskId: run.handle.runId,
      status,
      statusMessage,
      ttl: null,
      createdAt: run.startTime.toISOString(),
      lastUpdatedAt: (run.closeTime ?? new Date()).toISOString(),
      pollInterval: TASK_POLL_INTERVAL_MS,
    };
  }

  /** A task just created for a started run. */
  created(runId: string): Task {
    const now = new Date().toISOString();
    return {
      taskId: runId,
      status: 'working',
      statusMessage: 'started',
      ttl: null,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: TASK_POLL_INTERVAL_MS,
    };
  }

  /** A page of the caller's root runs, newest first, as tasks (the cursor is the listing's page token). */
  async list(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await this.agio.list({ tenant: this.caller.tenant, pageSize: 100, pageToken: cursor });
    return {
      tasks: page.runs.map((run) => ({
        taskId: run.runId,
        status: taskStatusOf(run.status),
        ttl: null,
        createdAt: run.startTime,
        lastUpdatedAt: run.closeTime ?? run.startTime,
        pollInterval: TASK_POLL_INTERVAL_MS,
      })),
      ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}),
    };
  }
}
