// Workflow bulkRedrive: one bulk job (pause, resume, cancel or retry every run a filter matches). It lists the runs
// once, then hands them to activities a chunk at a time; each chunk acts on its runs a few at a time and answers each
// run's outcome. A workflow rather than a loop in the bridge: the job outlives the bridge (and any worker) that started
// it, its progress is a query any bridge can ask, and its result is the report.
import { ApplicationFailure, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  BULK_CHUNK_SIZE,
  BULK_CONCURRENCY,
  BULK_MAX_RUNS,
  bulkProgressQuery,
  filterFor,
  type BulkProgress,
  type BulkRedriveActivities,
  type BulkRedriveInput,
  type BulkRunOutcome,
} from '../../common/bulk-redrive';
import { ErrorType } from '../../common/errors';

const { listBulkTargets } = proxyActivities<BulkRedriveActivities>({
  startToCloseTimeout: '5m',
  retry: { maximumAttempts: 5 },
});

/**
 * A chunk's activity. Pause, resume and cancel are safe to send again (a repeat is skipped: already paused, not
 * paused, ended), so a chunk lost with its worker is retried; a retry starts new runs, so its chunk is tried once.
 */
const chunkActivities = (action: BulkRedriveInput['action']) =>
  proxyActivities<BulkRedriveActivities>({
    startToCloseTimeout: '15m',
    heartbeatTimeout: '1m',
    retry: { maximumAttempts: action === 'retry' ? 1 : 3 },
  });

/** Acts on every run the filter matches; answers the report (the progress once every run has its outcome). */
export async function bulkRedrive(input: BulkRedriveInput): Promise<BulkProgress> {
  const progress: BulkProgress = {
    jobId: input.jobId,
    action: input.action,
    filter: input.filter,
    state: 'listing',
    matched: 0,
    done: 0,
    skipped: 0,
    failed: 0,
    startedAt: workflowInfo().startTime.toISOString(),
    outcomes: [],
  };
  setHandler(bulkProgressQuery, () => progress);
  let filter;
  try {
    filter = filterFor(input.action, input.filter);
  } catch (err) {
    throw ApplicationFailure.nonRetryable((err as Error).message, ErrorType.InvalidBulkFilter);
  }
  const targets = await listBulkTargets({ tenant: input.tenant, filter, limit: BULK_MAX_RUNS });
  progress.matched = targets.runIds.length;
  if (targets.more) progress.more = true;
  progress.state = 'running';
  const { redriveRuns } = chunkActivities(input.action);
  for (let i = 0; i < targets.runIds.length; i += BULK_CHUNK_SIZE) {
    const runIds = targets.runIds.slice(i, i + BULK_CHUNK_SIZE);
    let outcomes: BulkRunOutcome[];
    try {
      outcomes = await redriveRuns({
        tenant: input.tenant,
        action: input.action,
        runIds,
        by: input.by,
        ...(input.reason ? { reason: input.reason } : {}),
        concurrency: input.concurrency ?? BULK_CONCURRENCY,
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The chunk's attempts are over (its workers died, or timed out): its runs are reported, not left out.
      const failure = err as Error & { cause?: Error };
      const detail = `not re-driven: ${failure.cause?.message ?? failure.message}`;
      outcomes = runIds.map((runId) => ({ runId, outcome: 'failed', detail }));
    }
    for (const outcome of outcomes) {
      progress[outcome.outcome] += 1;
      progress.outcomes.push(outcome);
    }
  }
  progress.state = 'completed';
  progress.endedAt = new Date().toISOString();
  return progress;
}
