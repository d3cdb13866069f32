// What an operator needs around a deploy besides making a version current (versioning.ts): a deployment's versions
// (which is current, which still have runs pinned to them), and asking runs pinned to older versions to move.
import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { WorkflowType } from '../common';
import { upgradeSignal } from '../common/messages';
import {
  describeDeployment,
  promoteVersion,
  type PromoteOptions,
  type PromoteResult,
  type WorkflowServiceConnection,
} from './promotion';

/** One version of a deployment, as `agio versions` shows it. */
export interface DeploymentVersionView {
  buildId: string;
  current: boolean;
  ramping: boolean;
  /** Temporal's view: inactive, current, ramping, draining (no new runs, pinned runs open) or drained. */
  status: string;
  /** Open runs pinned to this version, counted from visibility. */
  openRuns: number;
  /** When a worker of this build first polled: what "older" means to promotion (worker/promotion.ts). */
  firstPolled: Date;
}

const STATUS_NAMES: Record<number, string> = { 1: 'inactive', 2: 'current', 3: 'ramping', 4: 'draining', 5: 'drained' };

/** The deployment's versions, newest first (the order promotion uses); empty when no worker of it has polled yet. */
export async function listDeploymentVersions(
  connection: WorkflowServiceConnection,
  client: Client,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentVersionView[]> {
  const deployment = await describeDeployment(connection, namespace, deploymentName);
  const ramping = deployment?.ramping;
  const versions = [...(deployment?.versions ?? [])].sort((a, b) => (b.createdNs > a.createdNs ? 1 : -1));
  return Promise.all(
    versions.map(async (v) => {
      const { count } = await client.workflow.count(
        `ExecutionStatus = "Running" AND TemporalWorkerDeploymentVersion = "${deploymentName}:${v.buildId}"`,
      );
      return {
        buildId: v.buildId,
        current: v.buildId === deployment?.current,
        ramping: v.buildId === ramping,
        status: STATUS_NAMES[v.status] ?? 'unknown',
        openRuns: count,
        firstPolled: new Date(Number(v.createdNs / 1_000_000n)),
      };
    }),
  );
}

/** A run asked to move: its execution and the version it is pinned to. */
export interface AskedRun {
  workflowId: string;
  runId: string;
  from: string;
}

/** How many upgrade signals are in flight at once: a deployment with thousands of pinned runs is not a burst. */
const SIGNAL_CONCURRENCY = 16;

/**
 * Asks every open Agio run pinned to another version of the deployment than `buildId` to move at its next safe point
 * (the upgrade signal: a paused or idle run gets a workflow task, sees it and continues as new onto the current
 * version). Runs are found by visibility (`TemporalWorkerDeploymentVersion`), version by version, and signalled a page
 * at a time with at most {@link SIGNAL_CONCURRENCY} signals in flight; a run that closed meanwhile is not counted.
 * Runs of a release that does not know the signal keep it unhandled and finish where they are.
 */
export async function askRunsToUpgrade(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  identity = 'agio',
): Promise<AskedRun[]> {
  const deployment = await describeDeployment(connection, namespace, deploymentName);
  const types = Object.values(WorkflowType)
    .map((t) => `"${t}"`)
    .join(', ');
  const asked: AskedRun[] = [];
  // Drained versions have no open pinned runs by definition; every other one may.
  for (const { buildId: from } of (deployment?.versions ?? []).filter((v) => v.buildId !== buildId && v.status !== 5)) {
    const query = `ExecutionStatus = "Running" AND TemporalWorkerDeploymentVersion = "${deploymentName}:${from}" AND WorkflowType IN (${types})`;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await connection.workflowService.listWorkflowExecutions({
        namespace,
        query,
        pageSize: 100,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      const runs = (page.executions ?? []).map((e) => ({
        workflowId: e.execution?.workflowId ?? '',
        runId: e.execution?.runId ?? '',
        from,
      }));
      await forEachLimited(runs, SIGNAL_CONCURRENCY, async (run) => {
        const signalled = await connection.workflowService
          .signalWorkflowExecution({
            namespace,
            workflowExecution: { workflowId: run.workflowId, runId: run.runId },
            signalName: upgradeSignal.name,
            identity,
            requestId: randomUUID(),
          })
          .then(
            () => true,
            () => false, // it may just have finished or continued as new
          );
        if (signalled) asked.push(run);
      });
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  return asked;
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** What {@link promote} did: the promotion, and the runs pinned to other versions it asked to move. */
export interface Promotion extends PromoteResult {
  asked: AskedRun[];
}

/**
 * The whole promotion, as `agio versions promote` and a worker told to make itself current do it: make `buildId`
 * current ({@link promoteVersion}: an older build only with `force`), then ask the runs pinned to other versions to
 * move ({@link askRunsToUpgrade}). Asked again when the build was current already, so a promotion can be repeated.
 */
export async function promote(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  opts: PromoteOptions = {},
): Promise<Promotion> {
  const result = await promoteVersion(connection, namespace, deploymentName, buildId, opts);
  const isCurrent = result.changed || result.previous === buildId;
  const asked = isCurrent
    ? await askRunsToUpgrade(connection, namespace, deploymentName, buildId, opts.identity ?? 'agio')
    : [];
  return { ...result, asked };
}
