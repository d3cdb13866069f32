// Starts in a session that already has a running run (the `onActiveRun` start option): the strategies, and the
// contract of the session's runner workflow (workflows/jobs/session-runner.ts), which starts the session's runs one at
// a time under one workflow id per session, so two starts at once are serialised by Temporal itself.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * What a start does when its session already has a run running (one started with a strategy too): `reject` (refused,
 * naming the running run), `enqueue` (starts once the running one has ended), `interrupt` (the running run is
 * cancelled, keeping the steps it took in the session's conversation, and the new one starts after it), `rollback`
 * (the running run is cancelled and its steps leave the session's conversation, then the new one starts).
 */
export const ON_ACTIVE_RUN = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
/** One of {@link ON_ACTIVE_RUN}. */
export type OnActiveRun = (typeof ON_ACTIVE_RUN)[number];

/** One run for the session's runner to start: the workflow exactly as the client would have started it. */
export interface SessionRunRequest {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  memo: Record<string, unknown>;
  /** AgioTenant, AgioAgent, AgioRootRunId. */
  searchAttributes: { tenant: string; agent: string; rootRunId: string };
  /** `interrupt` and `rollback` cancel the session's run running when the runner takes the request. */
  onActiveRun: OnActiveRun;
}

/** Input of the agioSession workflow. */
export interface SessionRunnerInput {
  tenant: string;
  sessionId: string;
  /** The first run (a start with `reject`); starts by signal-with-start bring theirs by signal. */
  first?: SessionRunRequest;
}

/** What the session's runner answers: the run running now and those waiting, oldest first. */
export interface SessionRuns {
  active?: string;
  queued: string[];
}

/**
 * The workflow id of a session's runner (one per tenant and session): the tenant's length first, so no two tenants'
 * sessions share one whatever characters their names hold (`a:b` + `c` against `a` + `b:c`).
 */
export function sessionRunnerId(tenant: string, sessionId: string): string {
  return `agio-session:${tenant.length}:${tenant}:${sessionId}`;
}

/** Adds a run to the session's queue (signal-with-start: the runner starts if the session has none). */
export const sessionRunSignal = defineSignal<[SessionRunRequest]>('agio.session.run');
/** The session's running and queued runs. */
export const sessionRunsQuery = defineQuery<SessionRuns>('agio.session.runs');
