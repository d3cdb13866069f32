// The activities of a bulk job (workflows/jobs/bulk-redrive.ts): list the runs a filter matches, and re-drive a chunk
// of them a few at a time through the worker's own Temporal client, as any AgioClient would (pause and resume wait
// until the run parks, as POST /runs/:id/pause does, up to BULK_CONTROL_WAIT_MS).
import { Context } from '@temporalio/activity';
import { AgioClient } from '../client/agio-client';
import { redriveRun, type RetryRun } from '../client/bulk-redrive';
import { findBulkTargets } from '../client/bulk-targets';
import { retryRun, type StepReader } from '../client/run-rescue';
import type { BulkRedriveActivities, BulkRunOutcome } from '../common/bulk-redrive';

/**
 * What the bulk activities need: the stores' steps a retry starts from (absent: a retry job reports each run failed).
 */
export interface BulkActivityDeps {
  steps?: StepReader;
}

/** The bulk job's activities. */
export function createBulkRedriveActivities(deps: BulkActivityDeps = {}): BulkRedriveActivities {
  return {
    async listBulkTargets({ tenant, filter, limit }) {
      return findBulkTargets(Context.current().client, tenant, filter, limit);
    },

    async redriveRuns({ tenant, action, runIds, by, reason, concurrency }) {
      const context = Context.current();
      const agio = new AgioClient(context.client);
      // Retries start on the task queue the job runs on (the worker's own), from the steps its stores recorded.
      const target = deps.steps && { temporal: context.client, taskQueue: context.info.taskQueue, steps: deps.steps };
      const retry: RetryRun | undefined = target && ((runId) => retryRun(target, runId, { tenant }));
      const outcomes: BulkRunOutcome[] = new Array(runIds.length);
      let next = 0;
      let ended = 0;
      // Beats while runs are handled (a worker that dies loses the chunk within the heartbeat timeout, not 15 minutes).
      const beat = setInterval(() => context.heartbeat({ ended }), 5_000);
      const lane = async () => {
        while (next < runIds.length && !context.cancellationSignal.aborted) {
          const i = next++;
          outcomes[i] = await redriveRun(agio.getHandle(runIds[i]), action, { by, reason, retry });
          ended += 1;
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, runIds.length)) }, lane));
      } finally {
        clearInterval(beat);
      }
      context.cancellationSignal.throwIfAborted();
      return outcomes;
    },
  };
}
