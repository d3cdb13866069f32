// Escalation (as in Google ADK's LoopAgent): a sub-agent ends its enclosing loop by calling the built-in `exit_loop`
// tool or by answering with `{"escalate": true}`; `toRoot` ends every enclosing workflow agent. Pure helpers.
import type { Escalation, Step, ToolCall } from '../../common';

/** The escalation an agent's final answer asks for, if it is a JSON object with `escalate: true`. */
export function escalationFromOutput(agent: string, response: string): Escalation | undefined {
  const text = response.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(text) as { escalate?: unknown; toRoot?: unknown; reason?: unknown };
    if (parsed.escalate !== true) return undefined;
    return {
      agent,
      toRoot: parsed.toRoot === true,
      ...(typeof parsed.reason === 'string' ? { reason: parsed.reason } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The tool step answering an `exit_loop` call, and the escalation it records. */
export function exitLoopStep(
  runId: string,
  agent: string,
  call: ToolCall,
  index: number,
): { step: Step; escalation: Escalation } {
  let args: { reason?: unknown; toRoot?: unknown } = {};
  try {
    args = call.arguments.trim() ? (JSON.parse(call.arguments) as typeof args) : {};
  } catch {
    // exit_loop still exits: its arguments are optional
  }
  const escalation: Escalation = {
    agent,
    toRoot: args.toRoot === true,
    ...(typeof args.reason === 'string' ? { reason: args.reason } : {}),
  };
  return {
    escalation,
    step: {
      id: `${runId}:${index}`,
      runId,
      index,
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: escalation.toRoot ? 'Exiting every enclosing workflow agent.' : 'Exiting the loop.',
    },
  };
}
