// A run as Temporal's record of it says, in Agio's words: its status, tenant, agent and root, read once by
// RunHandle.describe(). Another tenant's run is described exactly as a missing one (RunNotFoundError).
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { runStatusOf, type RunMemo, type RunStatus } from '../common';
import { RunNotFoundError, isNotFound } from './errors';

/** What RunHandle.describe() answers. */
export interface RunDescription {
  runId: string;
  /** Lowercase, as every Agio API says it (see RunStatus). */
  status: RunStatus;
  /** The tenant and agent its memo names (absent on a workflow Agio did not start). */
  tenant?: string;
  agent?: string;
  /** The root run whose event log holds this run's events: the run itself for a root run. */
  rootRunId: string;
  /** A nested run of a newer tree that keeps its own event log (its memo's `ownLog`). */
  ownLog: boolean;
  startTime: Date;
  closeTime?: Date;
  /** Temporal's description, read by the client's own views (model outage, version, schedule). */
  readonly workflow: WorkflowExecutionDescription;
}

/** Temporal's description of run `runId` as a {@link RunDescription}. */
export function runDescriptionOf(runId: string, description: WorkflowExecutionDescription): RunDescription {
  const memo = (description.memo ?? {}) as Partial<RunMemo> & { ownLog?: unknown };
  return {
    runId,
    status: runStatusOf(description.status.name) ?? 'running',
    ...(memo.tenant !== undefined ? { tenant: memo.tenant } : {}),
    ...(memo.agent !== undefined ? { agent: memo.agent } : {}),
    rootRunId: memo.rootRunId ?? runId,
    ownLog: memo.ownLog === true,
    startTime: description.startTime,
    ...(description.closeTime ? { closeTime: description.closeTime } : {}),
    workflow: description,
  };
}

/**
 * Describes the run behind `handle`: RunNotFoundError when there is none or (with `tenant`) when it is another tenant's,
 * the same answer for both.
 */
export async function describeRun(handle: WorkflowHandle, runId: string, tenant?: string): Promise<RunDescription> {
  const description = await handle.describe().catch((err: unknown) => {
    throw isNotFound(err) ? new RunNotFoundError(runId, { cause: err }) : err;
  });
  const run = runDescriptionOf(runId, description);
  if (tenant !== undefined && run.tenant !== tenant) throw new RunNotFoundError(runId);
  return run;
}
