// The runs a bulk filter matches: root runs of a tenant from Temporal visibility (by the search attributes the runs
// list filters on, and their start time), newest first. A failure's type is in no search attribute, so `errorType` is
// checked on each failed run's own result (a few at a time), after visibility has narrowed them to failed ones.
import type { Client } from '@temporalio/client';
import type { BulkFilter, BulkTargets } from '../common/bulk-redrive';
import { RunFailedError, runFailure } from './errors';
import { listQuery } from './run-list';

/** How many failed runs' results are read at once to check their error type. */
const ERROR_TYPE_READS = 16;

const quoted = (iso: string) => `'${new Date(iso).toISOString()}'`;

/** The visibility query of a bulk filter (tenant, agent, status and start time; not the error type). */
export function bulkQuery(tenant: string, filter: BulkFilter): string {
  const where = [listQuery({ tenant, agent: filter.agent, status: filter.status })];
  if (filter.startedAfter) where.push(`StartTime > ${quoted(filter.startedAfter)}`);
  if (filter.startedBefore) where.push(`StartTime < ${quoted(filter.startedBefore)}`);
  return where.join(' AND ');
}

/** The error type a failed run ended with (undefined when it did not fail with one). */
async function errorTypeOf(client: Client, runId: string): Promise<string | undefined> {
  try {
    await client.workflow.getHandle(runId).result();
    return undefined;
  } catch (err) {
    const failure = runFailure(runId, err);
    return failure instanceof RunFailedError ? failure.type : undefined;
  }
}

/** Keeps the runs whose error type is `errorType`, reading up to {@link ERROR_TYPE_READS} results at once. */
async function withErrorType(client: Client, runIds: string[], errorType: string): Promise<string[]> {
  const types: (string | undefined)[] = new Array(runIds.length);
  let next = 0;
  const reader = async () => {
    while (next < runIds.length) {
      const i = next++;
      types[i] = await errorTypeOf(client, runIds[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ERROR_TYPE_READS, runIds.length) }, reader));
  return runIds.filter((_, i) => types[i] === errorType);
}

/** The ids of the tenant's root runs `filter` matches, newest first: at most `limit` (`more` when there are others). */
export async function findBulkTargets(
  client: Client,
  tenant: string,
  filter: BulkFilter,
  limit: number,
): Promise<BulkTargets> {
  const query = bulkQuery(tenant, filter);
  const runIds: string[] = [];
  let pageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: 1000,
      ...(pageToken ? { nextPageToken: pageToken } : {}),
    });
    let ids = (page.executions ?? []).map((e) => e.execution?.workflowId ?? '').filter(Boolean);
    if (filter.errorType) ids = await withErrorType(client, ids, filter.errorType);
    runIds.push(...ids);
    pageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (pageToken && runIds.length <= limit);
  return { runIds: runIds.slice(0, limit), more: runIds.length > limit };
}
