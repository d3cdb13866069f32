// Moving long-lived runs to a new worker version. Runs are pinned to the version they started on
// (worker/versioning.ts); a pinned run moves only when it continues as new, and Temporal tells it when a newer version
// has become current.
import { workflowInfo } from '@temporalio/workflow';

/**
 * The patch under which agent runs and loops move to the current worker version at continue-as-new: they continue as
 * new at their next safe point once a newer version is current (a paused agent run at once, staying paused), and
 * every continue-as-new starts the new run on the current version.
 *
 * How a workflow change is patched (this one is the example; see openAgentRun): `const upgrades =
 * patched(UPGRADE_PATCH)` records a marker in a new run's history and returns true, so the run takes the new path;
 * replaying a history without the marker (a run started by an earlier release, on an unversioned or auto-upgrading
 * worker) returns false, and the run keeps the old path's commands. Call it once, where the new path first differs, and
 * branch on the value. Once no run started before the patch can still be open (`npm run replay-check` finds none, and
 * the fixtures of the releases without it are retired), replace it with `deprecatePatch(UPGRADE_PATCH)` and drop the
 * old path; a release later, drop the call.
 */
export const UPGRADE_PATCH = 'agio-upgrade-on-continue-as-new';

/**
 * Whether a newer worker version than the one this run is pinned to has become current (refreshed every workflow task).
 */
export function targetVersionChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}
