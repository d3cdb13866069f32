// Following a run for an MCP request that waits on it: its event stream read to the end, and each event a person would
// want to see (the run started, a tool call, a tool's answer, an approval asked for or decided, a pause, a nested run)
// sent as one progress notification, numbered in order, with a line saying what happened; deltas are left out.
import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { RunHandle } from '../../client/agio-client';
import type { AgioEvent } from '../../common';

/** What happened, in a line, or undefined for an event progress does not show. */
export function progressLine(event: AgioEvent): string | undefined {
  const who = event.depth > 0 ? `${event.agent} (nested): ` : '';
  const line = eventLine(event);
  return line === undefined ? undefined : who + line;
}

function eventLine(event: AgioEvent): string | undefined {
  switch (event.type) {
    case 'RUN_STARTED':
      return `run ${event.runId} started`;
    case 'STEP_COMPLETED': {
      const step = event.snapshot;
      if (step.role === 'tool') return `${step.name ?? 'a tool'} ${step.isError ? 'failed' : 'answered'}`;
      if (step.role !== 'assistant') return undefined;
      if (step.toolCalls?.length) return `calling ${step.toolCalls.map((c) => c.name).join(', ')}`;
      return 'answered';
    }
    case 'TOOL_AUTH_REQUIRED':
      return `waiting for a person to approve "${event.data.tool}" (tool call ${event.data.toolCallId})`;
    case 'TOOL_AUTH_GRANTED':
      return `"${event.data.tool}" approved`;
    case 'TOOL_AUTH_DENIED':
      return `"${event.data.tool}" denied`;
    case 'TOOL_AUTH_EXPIRED':
      return `the approval of "${event.data.tool}" expired`;
    case 'TOOL_CALLBACK_WAITING':
      return `waiting for the outside result of "${event.data.tool}"`;
    case 'RUN_PAUSED':
      return 'paused';
    case 'RUN_RESUMED':
      return 'resumed';
    case 'MODEL_UNAVAILABLE':
      return 'the model is unavailable; retrying';
    case 'RUN_COMPLETED':
      return event.depth > 0 ? 'completed' : 'run completed';
    case 'RUN_FAILED':
      return 'run failed';
    case 'RUN_CANCELLED':
      return 'run cancelled';
    default:
      return undefined;
  }
}

/**
 * Reads the run's stream (from its start) to its end, sending `notifications/progress` for `token` when one was given
 * (a notification that cannot be sent is dropped: progress is best effort). Resolves true at the end of the stream,
 * false when `signal` stopped the reading first (the request ended; the run goes on).
 */
export async function followRun(
  handle: RunHandle,
  token: ProgressToken | undefined,
  send: (notification: ServerNotification) => Promise<void>,
  signal: AbortSignal,
): Promise<boolean> {
  let progress = 0;
  try {
    for await (const event of handle.stream({ signal })) {
      const message = token === undefined ? undefined : progressLine(event);
      if (message === undefined) continue;
      const params = { progressToken: token as ProgressToken, progress: ++progress, message };
      await send({ method: 'notifications/progress', params }).catch(() => undefined);
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  return !signal.aborted;
}
