// What an operator needs around a deploy besides making a version current (versioning.ts): a deployment's versions
// (which is current, which still have runs pinned to them), and asking runs pinned to older versions to move.
import type { Client, Connection } from '@temporalio/client';
import { WorkflowType } from '../common';
import { upgradeSignal } from '../common/messages';
import { runVersionOf } from '../client/run-version';

/** One version of a deployment, as `agio versions` shows it. */
export interface DeploymentVersionView {
  buildId: string;
  current: boolean;
  ramping: boolean;
  /** Temporal's view: inactive, current, ramping, draining (no new runs, pinned runs open) or drained. */
  status: string;
  /** Open runs pinned to this version, counted from visibility. */
  openRuns: number;
}

const STATUS_NAMES: Record<number, string> = { 1: 'inactive', 2: 'current', 3: 'ramping', 4: 'draining', 5: 'drained' };

/** The deployment's versions, newest first; empty when no worker of it has polled yet. */
export async function listDeploymentVersions(
  connection: Connection,
  client: Client,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentVersionView[]> {
  const { workerDeploymentInfo: info } = await connection.workflowService.describeWorkerDeployment({
    namespace,
    deploymentName,
  });
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  const ramping = info?.routingConfig?.rampingDeploymentVersion?.buildId;
  const summaries = [...(info?.versionSummaries ?? [])].sort(
    (a, b) => Number(b.createTime?.seconds ?? 0) - Number(a.createTime?.seconds ?? 0),
  );
  return Promise.all(
    summaries.map(async (v) => {
      const buildId = v.deploymentVersion?.buildId ?? '';
      const { count } = await client.workflow.count(
        `ExecutionStatus = "Running" AND TemporalWorkerDeploymentVersion = "${deploymentName}:${buildId}"`,
      );
      return {
        buildId,
        current: buildId === current,
        ramping: buildId === ramping,
        status: STATUS_NAMES[Number(v.status ?? 0)] ?? 'unknown',
        openRuns: count,
      };
    }),
  );
}

/**
 * Asks every open Agio run of the deployment that is pinned to another version than `buildId` to move at its next
 * safe point (the upgrade signal). Returns the runs asked. Runs of an older release that does not know the signal
 * keep it unhandled and finish where they are.
 */
export async function askRunsToUpgrade(
  client: Client,
  deploymentName: string,
  buildId: string,
): Promise<{ runId: string; from: string }[]> {
  const asked: { runId: string; from: string }[] = [];
  const types = Object.values(WorkflowType)
    .map((t) => `"${t}"`)
    .join(', ');
  const query = `ExecutionStatus = "Running" AND TemporalWorkerDeployment = "${deploymentName}" AND WorkflowType IN (${types})`;
  for await (const run of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(run.workflowId);
    const version = runVersionOf(await handle.describe());
    if (!version || version.buildId === buildId || version.behavior !== 'pinned') continue;
    await handle.signal(upgradeSignal).catch(() => undefined); // it may just have finished
    asked.push({ runId: run.workflowId, from: version.buildId });
  }
  return asked;
}
