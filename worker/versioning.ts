// Worker Deployment Versioning: every worker polls as one version of a deployment (a build id), runs are pinned to the
// version they started on, and a new version becomes the one new runs start on when it is made current.
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { promote, type Promotion } from './deployment-versions';
import { projectRoot } from '../platform/project-root';
import { OlderVersionError, type WorkflowServiceConnection } from './promotion';

/** See {@link VersioningOptions.makeCurrent}. */
export type MakeCurrent = boolean | 'first' | 'force';

/** How a worker takes part in versioning (see {@link CreateWorkerOptions.versioning}). */
export interface VersioningOptions {
  /** The deployment: the service the worker belongs to (default: its task queue). */
  deploymentName?: string;
  /** This release's build id (default: derived from the workflow bundle, so the same code is the same version). */
  buildId?: string;
  /**
   * Whether the worker makes its own version current once it polls (default `'first'`). Promotion is otherwise an
   * operator's act (`agio versions promote <buildId>`), so that an old pod restarting mid-rollout, or a rollback, never
   * moves runs back onto old code by itself.
   * - `'first'`: only when the deployment has no current version yet (its very first worker); never replaces one.
   * - `false`: never.
   * - `true`: promote it (and ask runs pinned to other versions to move), unless it is older than the current
   *   version (worker/promotion.ts): then it stays as it is and the worker logs why.
   * - `'force'`: always, even back to an older build (`agio serve`: one process whose code is what should run).
   */
  makeCurrent?: MakeCurrent;
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

/**
 * Makes `version` current as `mode` says (see {@link VersioningOptions.makeCurrent}) once a worker of it polls. A
 * version exists once a worker of it polls, so this retries until the server knows it (or `timeoutMs` passes, or
 * `stillWanted` says the worker stopped). Settles with what was done; rejects when it is refused (an older build) or
 * fails.
 */
export async function makeVersionCurrent(
  connection: WorkflowServiceConnection,
  namespace: string,
  version: WorkerDeploymentVersion,
  mode: Exclude<MakeCurrent, false>,
  opts: { timeoutMs?: number; stillWanted?: () => boolean; identity?: string } = {},
): Promise<Promotion> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const promoteOpts = {
    force: mode === 'force',
    onlyIfNone: mode === 'first',
    identity: opts.identity ?? 'agio worker',
  };
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await promote(connection, namespace, version.deploymentName, version.buildId, promoteOpts);
    } catch (err) {
      if (err instanceof OlderVersionError) throw err;
      if (Date.now() > deadline || opts.stillWanted?.() === false)
        throw new Error(`could not make ${versionName(version)} current: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
