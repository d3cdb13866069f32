// Re-driving runs in bulk: the filter that picks the runs, the job's input, each run's outcome, the progress a job
// answers while it works and the report it ends with, and the inputs and outputs of its activities.
import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import { RUN_STATUSES } from './run-statuses';
import { AgentNameFilter } from './specs';

/** What a bulk job does to each run it matched. */
export const BULK_ACTIONS = ['pause', 'resume', 'cancel', 'retry'] as const;
/** What a bulk job does to each run it matched. */
export const BulkAction = z.enum(BULK_ACTIONS);
/** What a bulk job does to each run it matched. */
export type BulkAction = z.infer<typeof BulkAction>;

/** The most runs one job acts on: a filter matching more is refused (narrow it, e.g. by `startedBefore`). */
export const BULK_MAX_RUNS = 5000;
/** How many runs a job acts on at once. */
export const BULK_CONCURRENCY = 16;
/** How many runs one activity of a job handles (a job's history grows by one activity per chunk, not per run). */
export const BULK_CHUNK_SIZE = 50;

const isoTime = z.iso.datetime({ offset: true, message: 'an ISO 8601 time such as 2026-11-26T04:00:00Z' });

/** Which root runs of a tenant a bulk job acts on (every field narrows; none set: all the tenant's runs). */
export const BulkFilter = z
  .object({
    /** The tenant whose runs (default: the caller's). */
    tenant: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,128}$/, 'malformed tenant')
      .optional(),
    agent: AgentNameFilter.optional(),
    status: z.enum(RUN_STATUSES, { message: `status: one of ${RUN_STATUSES.join(', ')}` }).optional(),
    /** The failure's type (RunFailedError.type, e.g. ModelBadRequest): failed runs only. */
    errorType: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'errorType: an error type such as ModelBadRequest')
      .optional(),
    startedAfter: isoTime.optional(),
    startedBefore: isoTime.optional(),
  })
  .strict()
  .refine((f) => !f.errorType || !f.status || f.status === 'failed', {
    message: 'errorType picks failed runs: leave status out or set it to failed',
  })
  .refine((f) => !f.startedAfter || !f.startedBefore || Date.parse(f.startedAfter) < Date.parse(f.startedBefore), {
    message: 'startedAfter must be before startedBefore',
  });
/** Which root runs of a tenant a bulk job acts on. */
export type BulkFilter = z.infer<typeof BulkFilter>;

/** The input of workflow `bulkRedrive`. */
export interface BulkRedriveInput {
  jobId: string;
  /** The tenant whose runs, and who may read the job. */
  tenant: string;
  action: BulkAction;
  filter: BulkFilter;
  /** Who asked (recorded on each pause and resume). */
  by: string;
  reason?: string;
  /** Runs at once (default {@link BULK_CONCURRENCY}). */
  concurrency?: number;
}

/** What happened to one run: `done`, `skipped` (nothing to do: already paused, not paused, ended) or `failed`. */
export const BulkRunOutcome = z.object({
  runId: z.string(),
  outcome: z.enum(['done', 'skipped', 'failed']),
  /** Why skipped or failed; for `done`, what it did when that needs saying (`pending`: asked, not parked yet). */
  detail: z.string().optional(),
  /** A retry: the new run. */
  newRunId: z.string().optional(),
});
/** What happened to one run. */
export type BulkRunOutcome = z.infer<typeof BulkRunOutcome>;

/** A job's progress while it works, and its report once it has ended (`state: completed`). */
export const BulkProgress = z.object({
  jobId: z.string(),
  action: BulkAction,
  filter: BulkFilter,
  /** `cancelled` or `failed`: the job itself ended early (runs it acted on keep what it did to them). */
  state: z.enum(['listing', 'running', 'completed', 'cancelled', 'failed']),
  /** Runs the filter matched (known once listed). */
  matched: z.number().int().nonnegative(),
  /** The filter matched more than {@link BULK_MAX_RUNS} runs when the job listed them: it acts on the first only. */
  more: z.boolean().optional(),
  done: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  /** Each run handled so far (in the order they ended), every one of them once the job has completed. */
  outcomes: z.array(BulkRunOutcome),
});
/** A job's progress, and its report once it has ended. */
export type BulkProgress = z.infer<typeof BulkProgress>;

/** The progress of a bulk job (its query). */
export const bulkProgressQuery = defineQuery<BulkProgress>('agio.bulkProgress');

/** Activity `listBulkTargets`: the run ids one filter matches (at most `limit`). */
export interface ListBulkTargetsInput {
  tenant: string;
  filter: BulkFilter;
  limit: number;
}
/** Activity `listBulkTargets`'s answer: `more` when the filter matched more than `limit`. */
export interface BulkTargets {
  runIds: string[];
  more: boolean;
}

/** Activity `redriveRuns`: one chunk of a job's runs. */
export interface RedriveRunsInput {
  tenant: string;
  action: BulkAction;
  runIds: string[];
  by: string;
  reason?: string;
  concurrency: number;
}

/** The activities of a bulk job (worker/bulk-activities.ts). */
export interface BulkRedriveActivities {
  listBulkTargets(input: ListBulkTargetsInput): Promise<BulkTargets>;
  redriveRuns(input: RedriveRunsInput): Promise<BulkRunOutcome[]>;
}

/** The statuses each action may act on; the first is its default when the filter names none. */
const ACTIONABLE: Record<BulkAction, readonly string[]> = {
  pause: ['running'],
  resume: ['running'],
  cancel: ['running'],
  retry: ['failed', 'cancelled', 'timed_out', 'terminated'],
};

/** A filter naming runs its action cannot act on (pausing completed runs): the caller's mistake, a 400 over HTTP. */
export class InvalidBulkFilterError extends Error {
  override name = 'InvalidBulkFilterError';
}

/**
 * The filter a job of `action` lists with: the status defaulted to the one the action acts on (pause, resume and
 * cancel: running runs; retry: failed ones), `errorType` meaning failed runs. InvalidBulkFilterError for a status the
 * action cannot act on (pausing completed runs).
 */
export function filterFor(action: BulkAction, filter: BulkFilter): BulkFilter {
  const status = filter.status ?? (filter.errorType ? 'failed' : ACTIONABLE[action][0]);
  if (!ACTIONABLE[action].includes(status))
    throw new InvalidBulkFilterError(
      `status: ${action} acts on ${ACTIONABLE[action].join(', ')} runs, not ${status} ones`,
    );
  return { ...filter, status } as BulkFilter;
}

/** The workflow id of bulk job `jobId` of `tenant`. */
export const bulkJobWorkflowId = (tenant: string, jobId: string) => `agio-bulk/${tenant}/${jobId}`;
