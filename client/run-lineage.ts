// A run's lineage: where it came from (a retry or fork names its source in its memo) and which retries and forks were
// made from it (found in visibility by the AgioRescuedFrom search attribute they are started with).
import type { Client } from '@temporalio/client';
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { OriginSearchAttributes, RunSearchAttributes, originFields, type RunMemo, type RunOrigin } from '../common';

/** A retry or fork made from a run. */
export interface RescuedFrom extends RunOrigin {
  runId: string;
}

/** The origin a run's memo names (nothing for a run started from scratch). */
export function originOfMemo(memo: Record<string, unknown> | undefined): Partial<RunOrigin> {
  return originFields((memo as Partial<RunMemo> | undefined)?.origin);
}

/** The origin in a visibility listing's raw memo (decoded with the client's codecs, as Temporal stored it encoded). */
export async function originOfRawMemo(
  client: Client,
  memo: temporal.api.common.v1.IMemo | null | undefined,
): Promise<Partial<RunOrigin>> {
  if (!memo?.fields) return {};
  const fields = await decodeMapFromPayloads(client.workflow.options.loadedDataConverter, memo.fields).catch(
    () => undefined,
  );
  return originOfMemo(fields);
}

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The tenant's retries and forks of `runId`, oldest first (visibility lags a moment behind a start), at most 100. */
export async function rescuesOf(client: Client, tenant: string, runId: string): Promise<RescuedFrom[]> {
  const query = `${RunSearchAttributes.tenant.name} = ${quote(tenant)} AND ${OriginSearchAttributes.rescuedFrom.name} = ${quote(runId)}`;
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: `${query} AND ExecutionStatus != 'ContinuedAsNew'`,
    pageSize: 100,
  });
  const found = await Promise.all(
    (response.executions ?? []).map(async (e) => ({
      runId: e.execution?.workflowId ?? '',
      ...(await originOfRawMemo(client, e.memo)),
    })),
  );
  return found.reverse();
}
