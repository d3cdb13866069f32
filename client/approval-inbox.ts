// A tenant's approvals inbox: every tool call of its runs waiting for a person, at any depth of nesting, found from
// visibility (the runs' AgioWaiting = 'approval', workflows/lifecycle/waiting-index.ts) and read from each run's state
// query, a few runs at a time. Visibility lags the runs a moment: a run listed with nothing pending any more is
// dropped.
import type { Client } from '@temporalio/client';
import type { Inbox, InboxItem, PendingApproval } from '../common/approval-inbox';
import { stateQuery, type RunState } from '../common/messages';
import { RunSearchAttributes, WaitingSearchAttributes } from '../common/search-attributes';
import { isNotFound } from './errors';

/** Options of {@link pendingApprovals}: whose, which (agent, root run, tool), and how many. */
export interface PendingApprovalsOptions {
  tenant?: string;
  /** Only calls made by runs of this agent (the agent of the run that asks, nested or not). */
  agent?: string;
  /** Only calls of this run tree (the root's id). */
  rootRunId?: string;
  /** Only calls of this tool. */
  tool?: string;
  /** At most this many items, oldest ask first (default 50, at most 500). */
  limit?: number;
}

/** The most waiting runs one listing reads from visibility (then `truncated` says there were more). */
export const INBOX_SCAN_LIMIT = 1000;
/** How many runs' states are asked at once. */
export const INBOX_CONCURRENCY = 8;
/** How long one run's state may take: a run whose task queue no worker polls would hold a query until the RPC's end. */
export const INBOX_QUERY_TIMEOUT_MS = 5000;

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The visibility query: the tenant's running runs that wait for a decision. Roots carry AgioTenant; nested runs (and
 * roots) opened since patch `agio-approval-inbox` carry AgioWaitingTenant while they wait, and a nested run its root.
 */
export function inboxQuery(opts: Pick<PendingApprovalsOptions, 'tenant' | 'rootRunId'>): string {
  const tenant = quote(opts.tenant ?? 'default');
  const where = [
    `${WaitingSearchAttributes.waiting.name} = 'approval'`,
    `ExecutionStatus = 'Running'`,
    `(${WaitingSearchAttributes.waitingTenant.name} = ${tenant} OR ${RunSearchAttributes.tenant.name} = ${tenant})`,
  ];
  if (opts.rootRunId) {
    const root = quote(opts.rootRunId);
    where.push(`(WorkflowId = ${root} OR ${RunSearchAttributes.rootRunId.name} = ${root})`);
  }
  return where.join(' AND ');
}

/** The ids of the waiting runs visibility lists, up to {@link INBOX_SCAN_LIMIT}. */
async function waitingRuns(client: Client, query: string): Promise<{ ids: string[]; more: boolean }> {
  const ids: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: Math.min(100, INBOX_SCAN_LIMIT - ids.length),
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const e of page.executions ?? []) if (e.execution?.workflowId) ids.push(e.execution.workflowId);
    const more = Boolean(page.nextPageToken?.length);
    if (!more || ids.length >= INBOX_SCAN_LIMIT) return { ids, more };
    nextPageToken = page.nextPageToken!;
  }
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order. */
async function mapBounded<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** A root's id from a nested run's workflow id (`<root>/tool/…`), for runs whose state does not say it. */
const rootOf = (workflowId: string) => workflowId.split('/')[0];

/** The inbox items of one run's state. */
function itemsOf(workflowId: string, state: RunState): InboxItem[] {
  return state.pendingApprovals.map((p: PendingApproval) => ({
    ...p,
    runId: p.workflowId || workflowId,
    rootRunId: p.rootRunId ?? rootOf(workflowId),
    agent: state.agent,
    depth: p.depth ?? workflowId.split('/tool/').length - 1,
    ...(state.paused ? { paused: true, ...(state.pauseReason ? { pauseReason: state.pauseReason } : {}) } : {}),
  }));
}

/**
 * The tenant's tool calls waiting for a decision, oldest first, across its run trees at every depth (runs opened
 * before the waiting index, and nested runs opened before the inbox patch, are not listed).
 */
export async function pendingApprovals(client: Client, opts: PendingApprovalsOptions = {}): Promise<Inbox> {
  const limit = Math.min(Math.max(1, opts.limit ?? 50), 500);
  const { ids, more } = await waitingRuns(client, inboxQuery(opts));
  let dropped = 0;
  let unanswered = 0;
  const states = await mapBounded(ids, INBOX_CONCURRENCY, (id) =>
    client
      .withDeadline(Date.now() + INBOX_QUERY_TIMEOUT_MS, () => client.workflow.getHandle(id).query(stateQuery))
      .then(
        (state) => itemsOf(id, state),
        (err: Error) => {
          // Closed since visibility listed it: dropped below. No answer in time (no worker for its task queue): said.
          if (!isNotFound(err) && err.name !== 'QueryNotRegisteredError') unanswered++;
          return [] as InboxItem[];
        },
      ),
  );
  const items = states.flatMap((found) => {
    if (!found.length) dropped++;
    return found.filter(
      (i) =>
        (!opts.agent || i.agent === opts.agent) &&
        (!opts.tool || i.tool === opts.tool) &&
        (!opts.rootRunId || i.rootRunId === opts.rootRunId),
    );
  });
  items.sort((a, b) => (a.askedAt ?? '').localeCompare(b.askedAt ?? '') || a.runId.localeCompare(b.runId));
  return {
    approvals: items.slice(0, limit),
    ...(more || items.length > limit ? { truncated: true } : {}),
    dropped: dropped - unanswered,
    ...(unanswered ? { unanswered } : {}),
  };
}
