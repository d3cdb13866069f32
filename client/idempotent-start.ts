// Idempotent starts: a caller-chosen run id names one request. Temporal keeps one workflow per id (running, or closed
// within the namespace's retention) and the run's memo keeps a fingerprint of the request that started it, so a repeat
// finds the same run and a different request under the same id is refused. See docs/IDEMPOTENCY.md.
import type { Client, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { isNotFound } from './errors';

/** Everything that decides what a run does, as the caller asked for it (the fingerprint's input). */
export interface StartRequest {
  workflowType: string;
  agent: unknown;
  input: unknown;
  tenant: string;
  sessionId?: string;
  userId?: string;
  limits?: object;
  permissions?: unknown[];
  modelSettings?: object;
  state?: object;
  resumeFrom?: object;
}

/** JSON with every object's keys in code-unit order (undefined members dropped): equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The request's fingerprint: sha256 (hex) of its canonical JSON. Empty limits, rules, settings and state count as
 * absent (they start the same run), so `{}` and no field at all are the same request.
 */
export function startFingerprint(request: StartRequest): string {
  const nonEmpty = <T extends object>(v: T | undefined) => (v && Object.keys(v).length ? v : undefined);
  const normalized = {
    ...request,
    limits: nonEmpty(request.limits),
    permissions: nonEmpty(request.permissions),
    modelSettings: nonEmpty(request.modelSettings),
    state: nonEmpty(request.state),
  };
  return createHash('sha256')
    .update(canonicalJson({ v: 1, ...normalized }))
    .digest('hex');
}

/** A run id already names a run that a different request started (or one started without a fingerprint). */
export class IdempotencyConflictError extends Error {
  override name = 'IdempotencyConflictError';
  constructor(
    message: string,
    readonly runId: string,
  ) {
    super(message);
  }
}

/**
 * Starts the workflow unless its id is taken, then returns the run that holds the id if that run was started by the
 * same request (`created: false`). Reuse is rejected for closed runs too, so a repeat after the run ended finds it
 * rather than starting it again; concurrent starts converge because Temporal lets only one of them have the id.
 */
export async function startIdempotent(
  temporal: Client,
  workflowType: string,
  options: WorkflowStartOptions & { workflowId: string },
  fingerprint: string,
): Promise<{ handle: WorkflowHandle; created: boolean }> {
  const runId = options.workflowId;
  // Twice at most: a closed run can pass its retention (and vanish) between the refused start and the look-up.
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await temporal.workflow.start(workflowType, {
        ...options,
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      return { handle, created: true };
    } catch (err) {
      if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
    }
    const handle = temporal.workflow.getHandle(runId);
    let found: unknown;
    try {
      found = ((await handle.describe()).memo as { fingerprint?: unknown } | undefined)?.fingerprint;
    } catch (err) {
      const gone = isNotFound(err);
      if (gone && attempt === 0) continue;
      throw err;
    }
    if (found === fingerprint) return { handle, created: false };
    throw new IdempotencyConflictError(
      found === undefined
        ? `run "${runId}" already exists and was not started with a caller-chosen id (it has no request fingerprint): choose another run id`
        : `run "${runId}" was started by a different request (agent, input or start options differ): repeat the same request to get that run, or use a new run id`,
      runId,
    );
  }
}
