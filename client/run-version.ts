// Which worker version a run is on, read from Temporal's record of the run (Worker Deployment Versioning).
import type { WorkflowExecutionDescription } from '@temporalio/client';

/** The worker version a run runs on: shown by `GET /runs/:id`, its state and the CLI. */
export interface RunVersion {
  /** The deployment and build id (`deployment.buildId` is the version's name in Temporal). */
  deploymentName: string;
  buildId: string;
  /** pinned: finishes on this version (moving only at continue-as-new); auto_upgrade: follows the current version. */
  behavior: 'pinned' | 'auto_upgrade';
  /** Set when an operator moved the run by hand (`temporal workflow update-options`). */
  override?: string;
}

const BEHAVIORS: Record<string, RunVersion['behavior']> = {
  VERSIONING_BEHAVIOR_PINNED: 'pinned',
  VERSIONING_BEHAVIOR_AUTO_UPGRADE: 'auto_upgrade',
  1: 'pinned',
  2: 'auto_upgrade',
};

/** The run's version, or undefined for a run of an unversioned worker (or not yet picked up by any worker). */
export function runVersionOf(description: WorkflowExecutionDescription): RunVersion | undefined {
  const info = description.raw.workflowExecutionInfo?.versioningInfo;
  const version = info?.deploymentVersion;
  if (!info || !version?.buildId) return undefined;
  const override = info.versioningOverride;
  const overrideText = override?.pinned?.version
    ? `pinned to ${override.pinned.version.deploymentName}.${override.pinned.version.buildId}`
    : override?.autoUpgrade
      ? 'auto_upgrade'
      : undefined;
  return {
    deploymentName: version.deploymentName ?? '',
    buildId: version.buildId,
    behavior: BEHAVIORS[String(info.behavior)] ?? 'pinned',
    ...(overrideText ? { override: overrideText } : {}),
  };
}
