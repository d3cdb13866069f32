// Replays a finished workflow's recorded histories against the test bundle: a test proves the code it exercised is
// deterministic on the very runs it made (each execution of a continue-as-new chain, not only the last).
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { testEnv } from './test-env';

/** Replays every execution of `workflowId`; resolves with how many were replayed, rejects on a determinism error. */
export async function replayEveryExecution(client: Client, workflowId: string): Promise<number> {
  const escaped = workflowId.replace(/'/g, "\\\\'");
  let replayed = 0;
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${escaped}'` })) {
    const history = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: testEnv('workflowBundle') } }, history, workflowId);
    replayed++;
  }
  return replayed;
}

/** Replays the latest execution of `workflowId` (closed or open); rejects on a determinism error. */
export async function replayHistory(client: Client, workflowId: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: { codePath: testEnv('workflowBundle') } }, history, workflowId);
}
