// A start in a session whose earlier run may still be running (StartOptions.onActiveRun): the run goes through the
// session's runner workflow (workflows/jobs/session-runner.ts), one per tenant and session, which Temporal keeps unique
// by its workflow id, so two starts at once never both become the session's running run.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  sessionRunSignal,
  sessionRunnerId,
  sessionRunsQuery,
  type OnActiveRun,
  type SessionRunRequest,
} from '../common/session-runs';
import { isNotFound } from './errors';

/** A start with `onActiveRun: 'reject'` in a session that has a run running (or waiting to run). */
export class SessionBusyError extends Error {
  override name = 'SessionBusyError';
  constructor(
    readonly sessionId: string,
    /** The session's run running now (or the first waiting to). */
    readonly activeRunId: string | undefined,
  ) {
    super(
      `session "${sessionId}" has a run running${activeRunId ? ` ("${activeRunId}")` : ''}; wait for it to end, or ` +
        "start with onActiveRun 'enqueue', 'interrupt' or 'rollback'",
    );
  }
}

/** How long a `reject` start waits for a runner that has run its last run and is closing. */
const CLOSING_RUNNER_RETRIES = 3;

/**
 * Hands the run to the session's runner: `reject` starts the runner with the run (refused while it is open), the
 * others signal-with-start it (the run waits behind the running one, or that one is cancelled first).
 */
export async function startInSession(
  temporal: Client,
  taskQueue: string,
  session: { tenant: string; sessionId: string },
  request: Omit<SessionRunRequest, 'onActiveRun'>,
  onActiveRun: OnActiveRun,
): Promise<void> {
  const workflowId = sessionRunnerId(session.tenant, session.sessionId);
  if (onActiveRun !== 'reject') {
    await temporal.workflow.signalWithStart('agioSession', {
      taskQueue,
      workflowId,
      args: [session],
      signal: sessionRunSignal,
      signalArgs: [{ ...request, onActiveRun }],
    });
    return;
  }
  for (let attempt = 0; attempt < CLOSING_RUNNER_RETRIES; attempt++) {
    try {
      await temporal.workflow.start('agioSession', {
        taskQueue,
        workflowId,
        args: [{ ...session, first: { ...request, onActiveRun } }],
        workflowIdConflictPolicy: 'FAIL',
      });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const runner = temporal.workflow.getHandle(workflowId);
      const runs = await runner.query(sessionRunsQuery).catch(() => undefined);
      const busy = runs?.active ?? runs?.queued[0];
      if (busy || !runs) throw new SessionBusyError(session.sessionId, busy);
      await runner.result().catch(() => undefined); // its last run has ended: it is closing
    }
  }
  throw new SessionBusyError(session.sessionId, undefined);
}

/**
 * Resolves once the workflow `runId` exists (the session's runner starts it when its turn comes), polling its
 * description every 50 ms at first, then less often (at most every 2 s). Memoised: one poll however many callers.
 */
export function startedOnce(temporal: Client, runId: string): () => Promise<void> {
  let started: Promise<void> | undefined;
  const poll = async () => {
    for (let wait = 50; ; wait = Math.min(wait * 2, 2000)) {
      const found = await temporal.workflow
        .getHandle(runId)
        .describe()
        .then(
          () => true,
          (err: Error) => {
            if (isNotFound(err)) return false;
            throw err;
          },
        );
      if (found) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  return () => (started ??= poll());
}

/** The events of `follow()`, read once `started()` resolves (a run that waits its turn in its session). */
export async function* afterStart<E>(started: () => Promise<void>, follow: () => AsyncIterable<E>): AsyncGenerator<E> {
  await started();
  yield* follow();
}
