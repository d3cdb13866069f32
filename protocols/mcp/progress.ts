// MCP progress from a run's event stream: each event a person would want to see (the run started, a tool call, a
// tool's answer, an approval asked for or decided, a pause, a nested run) becomes one progress notification, numbered
// in order, with a line saying what happened; deltas and bookkeeping events are left out.
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
 * Sends `notifications/progress` for `token` from the run's stream (from its start) until the stream ends or `signal`
 * aborts; a notification that cannot be sent (the client went away) stops it. Never rejects.
 */
export async function sendProgress(
  handle: RunHandle,
  token: ProgressToken,
  send: (notification: ServerNotification) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  let progress = 0;
  try {
    for await (const event of handle.stream({ signal })) {
      const message = progressLine(event);
      if (message === undefined) continue;
      await send({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } });
    }
  } catch {
    // The stream was stopped (signal) or the client is gone: progress is best effort, the result is what counts.
  }
}
