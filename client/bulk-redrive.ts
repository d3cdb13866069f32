// Bulk re-drive from a client: count what a filter matches (a dry run), start a bulk job (workflow bulkRedrive on the
// client's task queue), read its progress and report; and what a job does to one run (used by its activities).
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  BULK_MAX_RUNS,
  bulkJobWorkflowId,
  bulkProgressQuery,
  filterFor,
  type BulkAction,
  type BulkFilter,
  type BulkProgress,
  type BulkRedriveInput,
  type BulkRunOutcome,
} from '../common/bulk-redrive';
import { ErrorType } from '../common/errors';
import { stateQuery } from '../common/messages';
import type { RunMemo } from '../common/run';
import { RunClosedError, RunNotFoundError, isNotFound } from './errors';
import type { RunHandle } from './run-handle';
import { findBulkTargets } from './bulk-targets';
import { RescueRefusedError } from './rescue-errors';

/** How long one pause or resume is waited for before it is reported `pending` (asked, the run not parked yet). */
export const BULK_CONTROL_WAIT_MS = 10_000;

/** Starts a retry of a failed run, answering the new run's id (the rescue module's retry). */
export type RetryRun = (runId: string, opts: { by: string }) => Promise<{ runId: string }>;

/** A dry run's answer: how many runs a job would act on, and the first of them. */
export interface BulkDryRun {
  action: BulkAction;
  filter: BulkFilter;
  matched: number;
  /** More than {@link BULK_MAX_RUNS} matched: a job would act on the first ones only. */
  more: boolean;
  /** The first runs (at most 20), newest first. */
  sample: string[];
}

/** What a refusal (already paused, ended, a retry refused) or an error means for one run of a bulk job. */
function skippedOrFailed(runId: string, err: unknown): BulkRunOutcome {
  const e = err as Error & { cause?: Error & { type?: string } };
  if (e.cause?.type === ErrorType.AlreadyPaused) return { runId, outcome: 'skipped', detail: 'already_paused' };
  if (err instanceof RunClosedError) return { runId, outcome: 'skipped', detail: `run_not_running: ${err.message}` };
  if (err instanceof RunNotFoundError) return { runId, outcome: 'failed', detail: 'run_not_found' };
  // A retry of a run that is running again or completed (visibility listed it as it was) has nothing to do.
  if (err instanceof RescueRefusedError)
    return {
      runId,
      outcome: err.reason === 'run_running' || err.reason === 'run_completed' ? 'skipped' : 'failed',
      detail: `${err.reason}: ${err.message}`,
    };
  return { runId, outcome: 'failed', detail: e.cause?.message ?? e.message };
}

/** The pause or resume, answered `pending` when the run has not parked within {@link BULK_CONTROL_WAIT_MS}. */
async function controlled(runId: string, sent: Promise<unknown>, waitMs: number): Promise<BulkRunOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), waitMs)));
  try {
    const answer = await Promise.race([sent, waited]);
    // The update keeps going: a later refusal of it has nobody to tell.
    if (answer === 'pending') sent.catch(() => undefined);
    return answer === 'pending' ? { runId, outcome: 'done', detail: 'pending' } : { runId, outcome: 'done' };
  } finally {
    clearTimeout(timer);
  }
}

/** Does `action` to one run; never throws: every run gets an outcome. */
export async function redriveRun(
  run: RunHandle,
  action: BulkAction,
  opts: { by: string; reason?: string; retry?: RetryRun; waitMs?: number },
): Promise<BulkRunOutcome> {
  const { runId } = run;
  const request = { by: opts.by, ...(opts.reason ? { reason: opts.reason } : {}) };
  const waitMs = opts.waitMs ?? BULK_CONTROL_WAIT_MS;
  try {
    switch (action) {
      case 'pause':
        return await controlled(runId, run.pause(request), waitMs);
      case 'resume': {
        // A run that is not paused has nothing to resume (the update would answer its state and do nothing).
        const state = await run.workflow.query(stateQuery);
        if (!state.paused) return { runId, outcome: 'skipped', detail: 'not_paused' };
        return await controlled(runId, run.resume(request), waitMs);
      }
      case 'cancel':
        await run.cancel();
        return { runId, outcome: 'done' };
      case 'retry': {
        if (!opts.retry)
          return { runId, outcome: 'failed', detail: 'retry_unavailable: this worker cannot retry runs' };
        const retried = await opts.retry(runId, { by: opts.by });
        return { runId, outcome: 'done', newRunId: retried.runId };
      }
    }
  } catch (err) {
    return skippedOrFailed(runId, err);
  }
}

/** Bulk jobs of a client's task queue. */
export class BulkRedrives {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** How many runs of `tenant` a job of `action` with `filter` would act on (InvalidBulkFilterError: see filterFor). */
  async dryRun(tenant: string, action: BulkAction, filter: BulkFilter): Promise<BulkDryRun> {
    const listed = filterFor(action, filter);
    const targets = await findBulkTargets(this.client, tenant, listed, BULK_MAX_RUNS);
    return {
      action,
      filter: listed,
      matched: targets.runIds.length,
      more: targets.more,
      sample: targets.runIds.slice(0, 20),
    };
  }

  /**
   * Starts a bulk job; answers its id. The job lists the runs itself when it starts (see
   * workflows/jobs/bulk-redrive.ts).
   */
  async start(job: Omit<BulkRedriveInput, 'jobId'> & { jobId?: string }): Promise<{ jobId: string }> {
    filterFor(job.action, job.filter);
    const jobId = job.jobId ?? `bulk-${randomUUID()}`;
    const memo: Pick<RunMemo, 'tenant'> = { tenant: job.tenant };
    try {
      await this.client.workflow.start('bulkRedrive', {
        taskQueue: this.taskQueue,
        workflowId: bulkJobWorkflowId(job.tenant, jobId),
        args: [{ ...job, jobId }],
        memo,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return { jobId };
  }

  /** A job's progress (its report once completed); undefined when `tenant` has no job by that id. */
  async progress(tenant: string, jobId: string): Promise<BulkProgress | undefined> {
    const handle = this.client.workflow.getHandle(bulkJobWorkflowId(tenant, jobId));
    try {
      const description = await handle.describe();
      if ((description.memo as Partial<RunMemo> | undefined)?.tenant !== tenant) return undefined;
      // An ended job's report is its result (no worker needed); a running one answers its query.
      const status = description.status.name;
      if (status === 'COMPLETED') return (await handle.result()) as BulkProgress;
      const progress = await handle.query(bulkProgressQuery);
      if (status === 'RUNNING') return progress;
      const endedAt = description.closeTime?.toISOString();
      return { ...progress, state: status === 'CANCELLED' ? 'cancelled' : 'failed', ...(endedAt ? { endedAt } : {}) };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Cancels a job (runs it already acted on keep what it did); false when `tenant` has no running job by that id. */
  async cancel(tenant: string, jobId: string): Promise<boolean> {
    const handle = this.client.workflow.getHandle(bulkJobWorkflowId(tenant, jobId));
    const description = await handle.describe().catch(() => undefined);
    if ((description?.memo as Partial<RunMemo> | undefined)?.tenant !== tenant) return false;
    if (description?.status.name !== 'RUNNING') return false;
    await handle.cancel();
    return true;
  }
}
