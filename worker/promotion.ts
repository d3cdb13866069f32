// Promoting a worker version (making it the deployment's current one), refusing to go back to an older build unless
// forced. "Older" is decided by the server's own record: the time the version was created, i.e. the first time any
// worker of that build polled the deployment. Build ids are hashes of the workflow code (versioning.ts), so a restarted
// old pod or a re-deployed old image is the same version with the same, earlier creation time.
import type { Connection } from '@temporalio/client';

/** Anything that reaches Temporal's workflow service: a client's, a worker's or a Client's own connection. */
export type WorkflowServiceConnection = Pick<Connection, 'workflowService'>;

/** One version of a deployment as the server records it. */
export interface DeploymentVersionRecord {
  buildId: string;
  /** When the server first saw a worker of this build (nanoseconds since the epoch): the release order. */
  createdNs: bigint;
  /** Temporal's status number (1 inactive, 2 current, 3 ramping, 4 draining, 5 drained). */
  status: number;
}

/**
 * A deployment's routing and versions, with the token that makes a later change conditional on nothing having moved.
 */
export interface DeploymentRecord {
  current?: string;
  ramping?: string;
  versions: DeploymentVersionRecord[];
  conflictToken?: Uint8Array;
}

/** Promotion refused: the build is older than the current one (pass `force` for a rollback). */
export class OlderVersionError extends Error {
  constructor(
    readonly buildId: string,
    readonly current: string,
  ) {
    super(
      `${buildId} is older than the current version ${current} (its workers first polled earlier): ` +
        `promoting it is a rollback; pass --force (force: true) to do it anyway`,
    );
    this.name = 'OlderVersionError';
  }
}

/** Promotion refused: no worker of the build has polled the deployment yet, so the server does not know it. */
export class UnknownVersionError extends Error {
  constructor(
    readonly deploymentName: string,
    readonly buildId: string,
  ) {
    super(`no worker of ${deploymentName} build ${buildId} has polled yet: start its workers first`);
    this.name = 'UnknownVersionError';
  }
}

/** The deployment's versions and current version; undefined when no worker of it has polled yet. */
export async function describeDeployment(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentRecord | undefined> {
  let res;
  try {
    res = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
  } catch (err) {
    if ((err as { code?: number }).code === 5 /* NOT_FOUND */) return undefined;
    throw err;
  }
  const info = res.workerDeploymentInfo;
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  const ramping = info?.routingConfig?.rampingDeploymentVersion?.buildId || undefined;
  return {
    ...(current ? { current } : {}),
    ...(ramping ? { ramping } : {}),
    versions: (info?.versionSummaries ?? []).map((v) => ({
      buildId: v.deploymentVersion?.buildId ?? '',
      createdNs: BigInt(String(v.createTime?.seconds ?? 0)) * 1_000_000_000n + BigInt(Number(v.createTime?.nanos ?? 0)),
      status: Number(v.status ?? 0),
    })),
    ...(res.conflictToken ? { conflictToken: res.conflictToken } : {}),
  };
}

/** How {@link promoteVersion} decides. */
export interface PromoteOptions {
  /** Promote even an older build than the current one (a rollback). */
  force?: boolean;
  /** Promote only when the deployment has no current version yet (a worker's first start); otherwise change nothing. */
  onlyIfNone?: boolean;
  /** Who did it, as Temporal records it (`lastModifierIdentity`). */
  identity?: string;
}

/** What {@link promoteVersion} did. */
export interface PromoteResult {
  /** The version current before (absent: none was). */
  previous?: string;
  /** False when nothing changed: the build was current already, or `onlyIfNone` found another current. */
  changed: boolean;
  /** True when a forced promotion went back to an older build. */
  rollback: boolean;
}

/**
 * Makes `buildId` the deployment's current version: refused with {@link OlderVersionError} when it is older than the
 * current one unless forced, and with {@link UnknownVersionError} before any worker of it has polled. The change is
 * conditional on the deployment being as described (its conflict token), so two promotions racing cannot both win.
 */
export async function promoteVersion(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  opts: PromoteOptions = {},
): Promise<PromoteResult> {
  // A version's workers register each of their task queues (workflows, activities, the webhook poller's) as their
  // pollers first reach the server; a promotion right after they start may find one not yet there, which Temporal
  // refuses (it would leave that queue unversioned). It is asked again, with the deployment read afresh, for a while.
  for (const deadline = Date.now() + QUEUES_ARRIVING_MS; ;) {
    try {
      return await promoteOnce(connection, namespace, deploymentName, buildId, opts);
    } catch (err) {
      if (!queuesStillArriving(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** How long a promotion waits for the new version's task queues to arrive (see promoteVersion). */
const QUEUES_ARRIVING_MS = 30_000;

/** Temporal's refusal of a version whose workers have not polled every task queue of the current one yet. */
const queuesStillArriving = (err: unknown): boolean =>
  (err as { code?: number }).code === 9 && /missing active task queues/i.test((err as Error).message ?? '');

async function promoteOnce(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  opts: PromoteOptions,
): Promise<PromoteResult> {
  const deployment = await describeDeployment(connection, namespace, deploymentName);
  const target = deployment?.versions.find((v) => v.buildId === buildId);
  if (!deployment || !target) throw new UnknownVersionError(deploymentName, buildId);
  const previous = deployment.current;
  const unchanged = { ...(previous ? { previous } : {}), changed: false, rollback: false };
  if (previous === buildId || (opts.onlyIfNone && previous)) return unchanged;
  const currentRecord = deployment.versions.find((v) => v.buildId === previous);
  const rollback = currentRecord !== undefined && target.createdNs < currentRecord.createdNs;
  if (rollback && !opts.force) throw new OlderVersionError(buildId, previous!);
  await connection.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName,
    buildId,
    identity: opts.identity ?? (rollback ? 'agio (forced rollback)' : 'agio'),
    ...(deployment.conflictToken ? { conflictToken: deployment.conflictToken } : {}),
  });
  return { ...(previous ? { previous } : {}), changed: true, rollback };
}
