// Listing root runs through Temporal visibility, by the search attributes AgioClient.start sets: one tenant's
// runs, newest first, filtered by agent and status, a page at a time.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { createHash } from 'node:crypto';
import {
  RUN_STATUSES,
  executionStatusOf,
  runStatusOf,
  type ExecutionStatus,
  type RunStatus,
} from '../common/run-status';
import { RunSearchAttributes, WaitingSearchAttributes } from '../common/search-attributes';
import { SCHEDULED_BY, scheduleIdOf } from '../common/schedules';
import { scheduleOfRun } from './schedule-options';
import { originOfRawMemo } from './run-lineage';

/** The statuses a listing filters by and reports (lowercase, as every Agio API says them). */
export { RUN_STATUSES, type RunStatus };

/** The visibility query's name of each status (`ExecutionStatus = '…'`). */
const QUERY_STATUS: Record<ExecutionStatus, string> = {
  RUNNING: 'Running',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  CANCELLED: 'Canceled',
  TERMINATED: 'Terminated',
  CONTINUED_AS_NEW: 'ContinuedAsNew',
  TIMED_OUT: 'TimedOut',
};

/** Temporal's WorkflowExecutionStatus enum, by number. */
const STATUS_BY_CODE = [
  'UNSPECIFIED',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
  'PAUSED',
] as const;

/** Options of {@link listRuns}: whose runs, which agent's, in which status, and which page. */
export interface ListRunsOptions {
  tenant?: string;
  agent?: string;
  status?: RunStatus;
  /** Only the runs this schedule of the tenant started. */
  schedule?: string;
  /** At most this many runs (default 50, at most 1000). */
  pageSize?: number;
  /** `nextPageToken` of the previous page. */
  pageToken?: string;
}

/** One root run of a listing. */
export interface RunSummary {
  runId: string;
  agent: string | undefined;
  /** `running`, or how the run ended (see {@link RunStatus}). */
  status: RunStatus;
  startTime: string;
  closeTime?: string;
  /** The tenant's schedule that started the run. */
  scheduleId?: string;
  /** A retry: the run it continues (see common/run-origin.ts). */
  retriedFrom?: string;
  /** A fork: the run it was forked from, at `step`. */
  forkedFrom?: string;
  step?: number;
}

/** A page of a listing. */
export interface RunPage {
  runs: RunSummary[];
  /** Present when there may be more runs. */
  nextPageToken?: string;
}

/** A page token that is not one of this listing's (malformed, or from another tenant's or filter's listing). */
export class BadPageTokenError extends Error {
  override name = 'BadPageTokenError';
}

/** Page tokens wrap the server's token with a digest of the query it belongs to: a token only continues the
 * listing that issued it, and a made-up one is refused here rather than by the server (which answers a
 * malformed token with an internal error). */
const queryDigest = (query: string) => createHash('sha256').update(query).digest('base64url').slice(0, 16);

function encodePageToken(query: string, serverToken: Uint8Array): string {
  return Buffer.from(
    JSON.stringify({ q: queryDigest(query), t: Buffer.from(serverToken).toString('base64url') }),
  ).toString('base64url');
}

function decodePageToken(query: string, token: string): Buffer {
  let parsed: { q?: unknown; t?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = {};
  }
  if (typeof parsed?.t !== 'string' || !parsed.t)
    throw new BadPageTokenError('pageToken: not a page token (use the nextPageToken of an earlier page)');
  if (parsed.q !== queryDigest(query))
    throw new BadPageTokenError('pageToken: the token belongs to a listing with other filters');
  return Buffer.from(parsed.t, 'base64url');
}

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The visibility query of a listing. A run that continued as new is listed once, as its latest execution. */
export function listQuery(opts: ListRunsOptions): string {
  const where = [`${RunSearchAttributes.tenant.name} = ${quote(opts.tenant ?? 'default')}`];
  if (opts.agent) where.push(`${RunSearchAttributes.agent.name} = ${quote(opts.agent)}`);
  if (opts.schedule) where.push(`${SCHEDULED_BY} = ${quote(scheduleIdOf(opts.tenant ?? 'default', opts.schedule))}`);
  where.push(
    opts.status
      ? `ExecutionStatus = ${quote(QUERY_STATUS[executionStatusOf(opts.status)])}`
      : `ExecutionStatus != 'ContinuedAsNew'`,
  );
  return where.join(' AND ');
}

/** A protobuf timestamp as an ISO string (undefined when unset). */
const isoOf = (ts: Parameters<typeof optionalTsToMs>[0]) => {
  const ms = optionalTsToMs(ts);
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

/** One page of the tenant's root runs, newest first. */
export async function listRuns(client: Client, opts: ListRunsOptions = {}): Promise<RunPage> {
  const pageSize = Math.min(Math.max(1, opts.pageSize ?? 50), 1000);
  const query = listQuery(opts);
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query,
    pageSize,
    ...(opts.pageToken ? { nextPageToken: decodePageToken(query, opts.pageToken) } : {}),
  });
  const runs = await Promise.all(
    (response.executions ?? []).map(async (e): Promise<RunSummary> => {
      const agent = e.searchAttributes?.indexedFields?.[RunSearchAttributes.agent.name];
      const closeTime = isoOf(e.closeTime);
      const scheduleId = scheduleOfRun(e.searchAttributes?.indexedFields, opts.tenant ?? 'default');
      return {
        runId: e.execution?.workflowId ?? '',
        agent: agent ? defaultPayloadConverter.fromPayload<string>(agent) : undefined,
        // A status Agio has no name for (UNSPECIFIED) is reported as running.
        status: runStatusOf(STATUS_BY_CODE[e.status ?? 0] ?? 'RUNNING') ?? 'running',
        startTime: isoOf(e.startTime) ?? '',
        ...(closeTime ? { closeTime } : {}),
        ...(scheduleId ? { scheduleId } : {}),
        ...(await originOfRawMemo(client, e.memo)),
      };
    }),
  );
  const next = response.nextPageToken?.length ? encodePageToken(query, response.nextPageToken) : undefined;
  return { runs, ...(next ? { nextPageToken: next } : {}) };
}

/**
 * How many of a tenant's root runs are in a status (Temporal visibility's count; a just-started run may lag a moment).
 */
export async function countRuns(
  client: Client,
  opts: Pick<ListRunsOptions, 'tenant' | 'agent' | 'status'>,
): Promise<number> {
  const response = await client.workflowService.countWorkflowExecutions({
    namespace: client.options.namespace,
    query: listQuery(opts),
  });
  return Number(response.count ?? 0);
}

/**
 * The root run id of a running run (root or nested: a nested run's id begins with its root's) whose id starts with
 * `idPrefix` and has a tool call waiting for a person (AgioWaiting = 'approval'); undefined when visibility has none.
 */
export async function waitingRunOf(client: Client, idPrefix: string): Promise<string | undefined> {
  const query = `WorkflowId STARTS_WITH ${quote(idPrefix)} AND ExecutionStatus = 'Running' AND ${WaitingSearchAttributes.waiting.name} = 'approval'`;
  for await (const run of client.workflow.list({ query, pageSize: 1 })) return run.workflowId.split('/')[0];
  return undefined;
}
