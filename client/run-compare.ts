// Reading two runs for a comparison (common/run-compare.ts does the comparing): each run's status, output or error and
// its steps, a completed root's from its result, any other's (running, failed, cancelled, nested) from its event log as
// it is now, read once without following. Runs of another tenant are not found, like missing ones.
import { compareRuns, type ComparedRunInput, type RunComparison } from '../common/run-compare';
import { eventsQuery } from '../common/messages';
import { runStatusOf } from '../common/run-status';
import type { RunMemo, RunOutput } from '../common/run';
import type { Step } from '../common/steps';
import type { AgioClient } from './agio-client';
import { RunFailedError, runFailure } from './errors';

/** A run asked for that does not exist or belongs to another tenant. */
export class ComparedRunNotFoundError extends Error {
  override name = 'ComparedRunNotFoundError';
  constructor(readonly runId: string) {
    super(`no run with id "${runId}"`);
  }
}

/** The steps of `runId` its log holds now (its own log for a root or a nested run keeping one; else its root's). */
async function loggedSteps(agio: AgioClient, runId: string, memo: Partial<RunMemo>): Promise<Step[]> {
  const logOwner = memo.ownLog || !memo.rootRunId ? runId : memo.rootRunId;
  const log = agio.getHandle(logOwner).workflow;
  const steps: Step[] = [];
  for (let after = -1; ;) {
    const page = await log.query(eventsQuery, { after, limit: 1000 });
    for (const e of page.events) {
      const snapshot = (e as { snapshot?: Step }).snapshot;
      if (e.type === 'STEP_COMPLETED' && e.runId === runId && snapshot) steps.push(snapshot);
    }
    if (!page.events.length) return steps;
    after = page.events[page.events.length - 1].offset;
  }
}

/** One run as a comparison reads it; ComparedRunNotFoundError when `tenant` has no such run. */
export async function readComparedRun(agio: AgioClient, tenant: string, runId: string): Promise<ComparedRunInput> {
  const handle = agio.getHandle(runId);
  const description = await handle.workflow.describe().catch(() => undefined);
  const memo = (description?.memo ?? {}) as Partial<RunMemo>;
  if (!description || memo.tenant !== tenant) throw new ComparedRunNotFoundError(runId);
  const status = runStatusOf(description.status.name) ?? 'running';
  const base = {
    runId,
    ...(memo.agent ? { agent: memo.agent } : {}),
    status,
    startTime: description.startTime.toISOString(),
    ...(description.closeTime ? { closeTime: description.closeTime.toISOString() } : {}),
  };
  if (status === 'running') return { ...base, steps: await loggedSteps(agio, runId, memo) };
  const ended = await handle.workflow.result().then(
    (output: RunOutput) => ({ output }),
    (err: unknown) => ({ failure: runFailure(runId, err) as Error }),
  );
  if ('output' in ended) {
    const { output } = ended;
    const steps = output.steps.length ? output.steps : await loggedSteps(agio, runId, memo);
    return { ...base, steps, usage: output.usage, output: output.response };
  }
  const { failure } = ended;
  const type = failure instanceof RunFailedError ? failure.type : (failure as { type?: string }).type;
  const message = (failure.cause as Error | undefined)?.message ?? failure.message;
  return { ...base, steps: await loggedSteps(agio, runId, memo), error: { ...(type ? { type } : {}), message } };
}

/** Compares run `a` with run `b` of `tenant` (ComparedRunNotFoundError when either is not the tenant's). */
export async function compareTenantRuns(
  agio: AgioClient,
  tenant: string,
  a: string,
  b: string,
): Promise<RunComparison> {
  const [runA, runB] = await Promise.all([readComparedRun(agio, tenant, a), readComparedRun(agio, tenant, b)]);
  return compareRuns(runA, runB);
}
