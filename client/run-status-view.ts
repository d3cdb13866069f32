// A run's status as clients see it (GET /runs/:id, RunHandle.status()): where it stands, where it came from, and
// once it has ended its output or error; read from Temporal's record of the run and, when it has ended, its result.
import type { Client } from '@temporalio/client';
import { runCostOf, type RunCost, type RunOrigin, type RunOutput, type RunStatus } from '../common';
import { modelOutageOf, type ModelOutage } from './model-outage';
import type { RunDescription } from './run-description';
import { originOfMemo, rescuesOf, type RescuedFrom } from './run-lineage';
import { runVersionOf, type RunVersion } from './run-version';
import { scheduleOfRun } from './schedule-options';

/** A run's status, and once it has ended its output (with its tree's cost) or its error. */
export type RunStatusView = {
  runId: string;
  agent?: string;
  status: RunStatus;
  startTime: Date;
  closeTime?: Date;
  /** A nested run's root. */
  rootRunId?: string;
  version?: RunVersion;
  /** The schedule that started the run. */
  scheduleId?: string;
  /** The retries and forks made from this run. */
  rescues?: RescuedFrom[];
  modelUnavailable?: ModelOutage;
  cost?: RunCost;
  output?: RunOutput;
  /** The failure's type (ApplicationFailure.type, e.g. OutputValidationError), when the run failed with one. */
  error?: { type?: string; message: string };
} & Partial<RunOrigin>;

/** The status view of a described run (its tenant's: the schedule and the rescues are looked up in it). */
export async function statusView(client: Client, run: RunDescription): Promise<RunStatusView> {
  const { runId, rootRunId, status } = run;
  const tenant = run.tenant ?? 'default';
  const version = runVersionOf(run.workflow);
  const scheduleId = scheduleOfRun(run.workflow.raw.workflowExecutionInfo?.searchAttributes?.indexedFields, tenant);
  const base: RunStatusView = {
    runId,
    agent: run.agent,
    status,
    startTime: run.startTime,
    closeTime: run.closeTime,
    ...(rootRunId !== runId ? { rootRunId } : {}),
    ...(version ? { version } : {}),
    ...(scheduleId ? { scheduleId } : {}),
    // Lineage: the run a retry or fork was made from, and the retries and forks made from this one.
    ...originOfMemo(run.workflow.memo),
    // (A visibility that cannot answer, e.g. without the search attribute, leaves the list out rather than fail.)
    ...(await rescuesOf(client, tenant, runId).then(
      (rescues) => (rescues.length ? { rescues } : {}),
      () => ({}),
    )),
  };
  if (status === 'running') {
    const outage = modelOutageOf(run.workflow);
    return outage ? { ...base, modelUnavailable: outage } : base;
  }
  return client.workflow
    .getHandle(runId)
    .result()
    .then(
      // The tree's cost up front (output.usage has the tokens and the same dollars).
      (output: RunOutput) => ({ ...base, cost: runCostOf(output.usage), output }),
      (err: Error) => {
        const cause = err.cause as (Error & { type?: string | null }) | undefined;
        return {
          ...base,
          error: { ...(cause?.type ? { type: cause.type } : {}), message: cause?.message ?? err.message },
        };
      },
    );
}
