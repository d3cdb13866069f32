// Reading a run tree's logs as they are now, once (no following): what finds the workflow that owns a tool call's
// approval or callback, which may be the run itself or any run nested in it.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { WireEvent } from '../common';
import { eventsQuery } from '../common/messages';

/**
 * Every event of run `runId`'s log as it is now (`handle`: its workflow), and those of the nested runs it points at.
 */
export async function* scanTree(client: Client, runId: string, handle: WorkflowHandle): AsyncGenerator<WireEvent> {
  for (let after = -1; ;) {
    const page = await handle.query(eventsQuery, { after, limit: 1000 });
    for (const e of page.events) {
      if ((e as { ownLog?: boolean }).ownLog && e.runId !== runId && e.type === 'RUN_STARTED')
        yield* scanTree(client, e.runId, client.workflow.getHandle(e.runId));
      else yield e;
    }
    if (!page.events.length) return;
    after = page.events[page.events.length - 1].offset;
  }
}

/**
 * The workflow that asked for approval of `toolCallId`, from its TOOL_AUTH_REQUIRED event. Call ids come from the model
 * and may repeat across turns or nested runs: the latest request still waiting for a decision wins, else the latest
 * request (whose owner then rejects the decision as already made).
 */
export async function approvalOwnerOf(
  events: AsyncIterable<WireEvent>,
  toolCallId: string,
): Promise<string | undefined> {
  const waiting: string[] = [];
  let latest: string | undefined;
  for await (const e of events) {
    const data = e.data as { toolCallId?: string; workflowId?: string } | undefined;
    if (data?.toolCallId !== toolCallId || !data.workflowId) continue;
    if (e.type === 'TOOL_AUTH_REQUIRED') waiting.push((latest = data.workflowId));
    else if (e.type === 'TOOL_AUTH_GRANTED' || e.type === 'TOOL_AUTH_DENIED') {
      const i = waiting.lastIndexOf(data.workflowId);
      if (i >= 0) waiting.splice(i, 1);
    }
  }
  return waiting[waiting.length - 1] ?? latest;
}
