// The agioSession workflow: one per tenant and session (workflow id `agio-session:<n>:<tenant>:<session>`), alive while
// the session has a run started with an `onActiveRun` strategy running or waiting. It starts those runs one at a time,
// as children that outlive it (each is a root run, under its own run id), in the order they came; a start that
// interrupts or rolls back cancels the run running now. Temporal keeps one open workflow per id, so two starts at
// once are serialised without a lock of our own: `reject` is a start that fails when the session's runner is open.
import {
  CancellationScope,
  ParentClosePolicy,
  condition,
  proxyLocalActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { RunSearchAttributes } from '../../common/search-attributes';
import {
  sessionRunSignal,
  sessionRunsQuery,
  type SessionRunRequest,
  type SessionRunnerInput,
  type SessionRuns,
} from '../../common/session-runs';
import type { AgioActivities } from '../../common/contracts/activities';

const { rollBackRun } = proxyLocalActivities<AgioActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumInterval: '10s' },
  scheduleToCloseTimeout: '10m',
});

/** The run the runner is running now. */
interface Active {
  request: SessionRunRequest;
  scope: CancellationScope;
  rollback: boolean;
}

/** Runs a session's strategy starts one at a time; returns the runs it started, in order, when none is left. */
export async function agioSession(input: SessionRunnerInput): Promise<{ runs: string[]; rolledBack: string[] }> {
  const queue: SessionRunRequest[] = input.first ? [input.first] : [];
  const runs: string[] = [];
  const rolledBack: string[] = [];
  let active: Active | undefined;
  setHandler(sessionRunSignal, (request) => {
    queue.push(request);
    const replaces = request.onActiveRun === 'interrupt' || request.onActiveRun === 'rollback';
    if (!active || !replaces) return;
    active.rollback ||= request.onActiveRun === 'rollback';
    active.scope.cancel();
  });
  setHandler(sessionRunsQuery, (): SessionRuns => ({
    ...(active ? { active: active.request.workflowId } : {}),
    queued: queue.map((r) => r.workflowId),
  }));
  // A signal-with-start brings its run in the first workflow task.
  await condition(() => queue.length > 0, '1 minute');
  while (queue.length) {
    const request = queue.shift()!;
    const current: Active = (active = { request, scope: new CancellationScope(), rollback: false });
    runs.push(request.workflowId);
    try {
      // Cancelling the scope cancels the child and waits until it has ended (its record written, best effort).
      await current.scope.run(async () => {
        const child = await startChild(request.workflowType, {
          workflowId: request.workflowId,
          args: request.args,
          memo: request.memo,
          typedSearchAttributes: [
            { key: RunSearchAttributes.tenant, value: request.searchAttributes.tenant },
            { key: RunSearchAttributes.agent, value: request.searchAttributes.agent },
            { key: RunSearchAttributes.rootRunId, value: request.searchAttributes.rootRunId },
          ],
          // A run is the session's, not the runner's: it goes on if the runner is terminated.
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
        await child.result();
      });
    } catch {
      // Failed or cancelled: the session's next run goes on all the same.
    }
    if (current.rollback) {
      await rollBackRun({ tenant: input.tenant, runId: request.workflowId });
      rolledBack.push(request.workflowId);
    }
    active = undefined;
  }
  return { runs, rolledBack };
}
