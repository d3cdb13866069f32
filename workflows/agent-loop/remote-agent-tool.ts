// A call of a remote A2A agent tool (docs/ARCHITECTURE.md, "A2A"; patch `agio-a2a-remote-agents`, asked only for such
// a call): sendRemoteMessage sends the message once and its result, the remote task, is recorded in history; then
// followRemoteTask follows that task, heartbeating, to its end or the tool's deadline. A worker lost while following
// is noticed by the heartbeat timeout and the same task is followed again elsewhere; the message is never re-sent.
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { RunContext, Step, ToolCall, ToolSpec } from '../../common';
import type { RunControl } from '../lifecycle/control';
import { failureMessage } from '../lifecycle/run-errors';
import type { AgioActivities } from '../../common/contracts/activities';

/** Sends at most a few times, each attempt the same message id (a network failure before an answer). */
const { sendRemoteMessage } = proxyActivities<AgioActivities>({
  startToCloseTimeout: '1m',
  retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
});

/** followRemoteTask with room for the tool's timeout; it heartbeats at least every 5 s. */
function follower(spec: ToolSpec): AgioActivities['followRemoteTask'] {
  return proxyActivities<AgioActivities>({
    startToCloseTimeout: spec.timeoutMs + 60_000,
    heartbeatTimeout: '20s',
    retry: { maximumAttempts: 10, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  }).followRemoteTask;
}

/** Runs the call; every outcome (a remote error, a timeout, a refusal) is a tool step the model reads. */
export async function runRemoteAgentTool(
  call: ToolCall,
  spec: ToolSpec,
  base: Step,
  context: RunContext,
  control?: RunControl,
): Promise<Step> {
  const startedAt = Date.now();
  const track = <T>(p: Promise<T>) => (control ? control.track(p) : p);
  try {
    const sent = await track(
      sendRemoteMessage({ tool: call.name, runId: context.runId, toolCallId: call.id, arguments: call.arguments }),
    );
    const out =
      'result' in sent
        ? sent.result
        : await track(follower(spec)({ tool: call.name, task: sent.task, deadline: startedAt + spec.timeoutMs }));
    return {
      ...base,
      content: out.content,
      isError: out.isError,
      metrics: { startedAt, durationMs: Date.now() - startedAt },
    };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return {
      ...base,
      content: `Error: remote agent "${call.name}" did not answer: ${failureMessage(err)}`,
      isError: true,
      metrics: { startedAt, durationMs: Date.now() - startedAt },
    };
  }
}
