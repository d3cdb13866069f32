// Worker Deployment Versioning: every worker polls as one version of a deployment (a build id), runs are pinned to the
// version they started on, and a new version becomes the one new runs start on when it is made current.
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { Connection } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { projectRoot } from './project-root';

/** How a worker takes part in versioning (see {@link CreateWorkerOptions.versioning}). */
export interface VersioningOptions {
  /** The deployment: the service the worker belongs to (default: its task queue). */
  deploymentName?: string;
  /** This release's build id (default: derived from the workflow bundle, so the same code is the same version). */
  buildId?: string;
  /**
   * Make this version current once the worker polls (default true): new runs start on it, and runs pinned to an older
   * version move to it when they next continue as new. False: an operator does it (`agio versions set-current`)
   * after checking it, e.g. with `agio replay-check`.
   */
  makeCurrent?: boolean;
  /**
   * pinned (default): a run finishes on the version it started on, moving only at continue-as-new, so the previous
   * version's workers must run until it drains. auto_upgrade: runs follow the current version at their next workflow
   * task (their histories must replay on the new code: patch changes, check with `agio replay-check`), for a single
   * process that cannot keep the previous release running (`agio serve`).
   */
  behavior?: 'pinned' | 'auto_upgrade';
}

/**
 * A build id from the workflow code: the first 12 hex digits of its SHA-256, so only a change of workflow code makes a
 * new version. The bundle names its modules by absolute path and ends with a source map of them; the checkout's own
 * path and the source map are left out, so the same release built in two directories (a laptop, an image) is one
 * version, not two that would each make themselves current.
 */
export function buildIdOf(workflowCode: string, root = projectRoot()): string {
  const code = workflowCode
    .replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '')
    .split(root)
    .join('');
  return `wf-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

/** The version's name as Temporal writes it (`deployment.buildId`). */
export function versionName(version: WorkerDeploymentVersion): string {
  return `${version.deploymentName}.${version.buildId}`;
}

/** Anything that reaches Temporal's workflow service: a client's or a worker's connection. */
type WorkflowServiceConnection = Pick<Connection, 'workflowService'>;

/** Makes `buildId` the deployment's current version (new runs start on it); returns the version it replaced. */
export async function setCurrentVersion(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  identity = 'agio',
): Promise<{ previous?: string }> {
  const res = await connection.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName,
    buildId,
    identity,
  });
  return { previous: res.previousDeploymentVersion?.buildId ?? undefined };
}

/**
 * Makes `version` the deployment's current version once a worker of it polls. A version exists once a worker of it polls, so this retries until
 * the server knows it (or `timeoutMs` passes, or `stillWanted` says the worker stopped). Already current: returns at once.
 */
export async function makeVersionCurrent(
  connection: WorkflowServiceConnection,
  namespace: string,
  version: WorkerDeploymentVersion,
  opts: { timeoutMs?: number; stillWanted?: () => boolean; identity?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      const { workerDeploymentInfo } = await connection.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName: version.deploymentName,
      });
      if (workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId === version.buildId) return;
      await setCurrentVersion(connection, namespace, version.deploymentName, version.buildId, opts.identity);
      return;
    } catch (err) {
      if (Date.now() > deadline || opts.stillWanted?.() === false)
        throw new Error(`could not make ${versionName(version)} current: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
