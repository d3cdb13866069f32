// Moving long-lived runs to a new worker version. Runs are pinned to the version they started on (worker/versioning.ts);
// a pinned run moves only when it continues as new, and Temporal tells it when a newer version has become current.
import { workflowInfo } from '@temporalio/workflow';

/**
 * The patch under which agent runs and loops move to the current worker version at continue-as-new: they continue as
 * new at their next safe point once a newer version is current (a paused agent run at once, staying paused), and
 * every continue-as-new starts the new run on the current version.
 */
export const UPGRADE_PATCH = 'agio-upgrade-on-continue-as-new';

/** Whether a newer worker version than the one this run is pinned to has become current (refreshed every workflow task). */
export function targetVersionChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}
