// Looking up runs through Temporal, scoped to a tenant: another tenant's run answers exactly like a missing one.
// Nested runs (agents used as tools, sub-agents of workflow agents) are runs too; their events live in their root's log.
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { runCostOf, runStatusOf, type RunMemo, type RunOutput, type RunStatus } from '../common';
import { modelOutageOf } from '../client/model-outage';
import { runVersionOf } from '../client/run-version';
import { scheduleOfRun } from '../client/schedule-options';
import { originOfMemo, rescuesOf } from '../client/run-lineage';
import { runNotFound } from './errors';

/** Describes a run if it exists and belongs to the tenant; otherwise 404. */
export async function describeRun(
  client: Client,
  tenant: string,
  runId: string,
): Promise<WorkflowExecutionDescription> {
  let description: WorkflowExecutionDescription;
  try {
    description = await client.workflow.getHandle(runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || (err as Error).name === 'WorkflowNotFoundError')
      throw runNotFound(runId);
    throw err;
  }
  if ((description.memo as Partial<RunMemo> | undefined)?.tenant !== tenant) throw runNotFound(runId);
  return description;
}

/** The root run whose event log holds this run's events (the run itself for a root run). */
export function rootRunIdOf(description: WorkflowExecutionDescription, runId: string): string {
  return (description.memo as Partial<RunMemo> | undefined)?.rootRunId ?? runId;
}

/** The run's status (lowercase, see RunStatus) and, when it has finished, its output or error. */
export async function runStatus(client: Client, tenant: string, runId: string) {
  const description = await describeRun(client, tenant, runId);
  const status: RunStatus = runStatusOf(description.status.name) ?? 'running';
  const rootRunId = rootRunIdOf(description, runId);
  const version = runVersionOf(description);
  const scheduleId = scheduleOfRun(description.raw.workflowExecutionInfo?.searchAttributes?.indexedFields, tenant);
  const base = {
    runId,
    agent: (description.memo as Partial<RunMemo>).agent,
    status,
    startTime: description.startTime,
    closeTime: description.closeTime,
    ...(rootRunId !== runId ? { rootRunId } : {}),
    ...(version ? { version } : {}),
    ...(scheduleId ? { scheduleId } : {}),
    // Lineage: the run a retry or fork was made from, and the retries and forks made from this one.
    ...originOfMemo(description.memo),
    // (A visibility that cannot answer, e.g. without the search attribute, leaves the list out rather than fail.)
    ...(await rescuesOf(client, tenant, runId).then(
      (rescues) => (rescues.length ? { rescues } : {}),
      () => ({}),
    )),
  };
  if (status === 'running') {
    const outage = modelOutageOf(description);
    return outage ? { ...base, modelUnavailable: outage } : base;
  }
  const handle = client.workflow.getHandle(runId);
  return handle.result().then(
    // The tree's cost up front (output.usage has the tokens and the same dollars).
    (output: RunOutput) => ({ ...base, cost: runCostOf(output.usage), output }),
    (err: Error) => {
      // The failure's type (ApplicationFailure.type, e.g. OutputValidationError), when the run failed with one.
      const cause = err.cause as (Error & { type?: string | null }) | undefined;
      return {
        ...base,
        error: { ...(cause?.type ? { type: cause.type } : {}), message: cause?.message ?? err.message },
      };
    },
  );
}
