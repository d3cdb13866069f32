// Runs one turn's tool calls as activities (in parallel unless the agent says otherwise) and turns every
// outcome — success, bad arguments, unknown tool, timeout — into a tool step the model sees next turn.
import { isCancellation, patched, proxyActivities, proxyLocalActivities, type RetryPolicy } from '@temporalio/workflow';
import type { AgentToolSpec, ChatMessage, RunContext, Step, ToolCall, ToolSpec } from '../../common';
import { runAgentTool } from '../nesting/agent-tool';
import type { Emitter } from '../events/emitter';
import type { Approvals } from '../lifecycle/approvals';
import { CALLBACK_TOOLS_PATCH, type Callbacks } from './callback-tools';
import type { WaitTracker } from '../nesting/active-deadline';
import type { RunControl } from '../lifecycle/control';
import { failureMessage } from '../lifecycle/run-errors';
import { runRemoteAgentTool } from './remote-agent-tool';
import { REMOTE_AGENTS_PATCH } from '../../common/remote-agents';
import type { AgioActivities } from '../../common/contracts/activities';

/** What the tool runner needs from the run. */
export interface ToolTurn {
  context: RunContext;
  /** The run's emitter (a parent reports the end of a child that could not). */
  events: Emitter;
  specs: Map<string, ToolSpec>;
  /** Agents offered as tools, by tool name. */
  agentTools: Map<string, AgentToolSpec>;
  /** The parent's conversation so far (agent tools build their delegation context from it). */
  messages: ChatMessage[];
  calls: ToolCall[];
  /** Index of the first tool step. */
  firstIndex: number;
  sequential: boolean;
  /** Tokens the run (with its children) has spent so far: agents called as tools get what is left of the budget. */
  spentTokens?: number;
  /** Counts activities in flight (pause bookkeeping) and tracks child runs. */
  control?: RunControl;
  /** Which child runs wait (agent-tool deadlines stand still meanwhile). */
  waits?: WaitTracker;
  /** Permission rules and human approvals (absent: every call is allowed). */
  approvals?: Approvals;
  /** Where callback tools wait for their results (absent: a callback tool runs as a plain tool). */
  callbacks?: Callbacks;
}

const proxies = new Map<string, AgioActivities['runTool']>();

/**
 * runTool with the tool's timeouts and retries. A quick tool (short, idempotent) runs as a local activity: in the
 * workflow task that scheduled it, with no server round trip; after a worker crash it runs again from the start,
 * which its idempotency makes safe. Everything else is an activity, heartbeaten, retried by the server.
 *
 * Which one is decided by the spec resolveTools returned, which the run's history records: a run that resolved its
 * tools before quick tools existed replays them as the activities it scheduled, with no patch marker needed.
 */
function runToolFor(spec: ToolSpec): AgioActivities['runTool'] {
  const local = spec.quick === true;
  const heartbeatTimeout = spec.heartbeatTimeoutMs ?? Math.min(spec.timeoutMs, 15_000);
  const key = `${local ? 'local' : 'remote'}/${spec.timeoutMs}/${heartbeatTimeout}/${spec.maxAttempts}`;
  let fn = proxies.get(key);
  if (!fn) {
    const retry: RetryPolicy = { maximumAttempts: spec.maxAttempts, initialInterval: '1s', backoffCoefficient: 2 };
    fn = local
      ? proxyLocalActivities<AgioActivities>({ startToCloseTimeout: spec.timeoutMs, retry }).runTool
      : proxyActivities<AgioActivities>({ startToCloseTimeout: spec.timeoutMs, heartbeatTimeout, retry }).runTool;
    proxies.set(key, fn);
  }
  return fn;
}

/** Runs the calls and returns their tool steps in call order. */
export async function runToolCalls(turn: ToolTurn): Promise<Step[]> {
  const one = (call: ToolCall, i: number) => runOne(turn, call, turn.firstIndex + i);
  if (turn.sequential) {
    const steps: Step[] = [];
    for (const [i, call] of turn.calls.entries()) steps.push(await one(call, i));
    return steps;
  }
  return Promise.all(turn.calls.map(one));
}

/**
 * How many agents the turn runs at once: they split what is left of the token budget (one at a time: each gets it all).
 */
function agentShares(turn: ToolTurn): number {
  return turn.sequential ? 1 : turn.calls.filter((c) => turn.agentTools.has(c.name)).length;
}

async function runOne(turn: ToolTurn, call: ToolCall, index: number): Promise<Step> {
  const { context } = turn;
  const base = {
    id: `${context.runId}:${index}`,
    runId: context.runId,
    index,
    role: 'tool' as const,
    toolCallId: call.id,
    name: call.name,
  };
  const agentTool = turn.agentTools.get(call.name);
  const spec = turn.specs.get(call.name);
  if (!spec && !agentTool) {
    const available = [...turn.specs.keys(), ...turn.agentTools.keys()].join(', ') || 'none';
    return { ...base, content: `Error: unknown tool "${call.name}"; available tools: ${available}`, isError: true };
  }
  if (turn.approvals) {
    const verdict = await turn.approvals.check(call);
    if (!verdict.run) return { ...base, content: verdict.message, isError: true, metadata: { permission: 'denied' } };
  }
  if (agentTool) {
    const { events, messages: parentMessages, control, waits, spentTokens } = turn;
    return runAgentTool({
      context,
      events,
      tool: agentTool,
      call,
      base,
      parentMessages,
      control,
      waits,
      spentTokens,
      shares: agentShares(turn),
    });
  }
  // A remote A2A agent: sent once, then its task followed (asked only for such a call: older runs never had one).
  if (spec?.remoteAgent && patched(REMOTE_AGENTS_PATCH))
    return runRemoteAgentTool(call, spec, { ...base, content: '' }, context, turn.control);
  // A callback tool starts its work and waits for its result (asked only for such a call: older runs never had one).
  if (spec?.callback && turn.callbacks && patched(CALLBACK_TOOLS_PATCH))
    return turn.callbacks.run(call, { ...spec, callback: spec.callback }, { ...base, content: '' });
  const startedAt = Date.now();
  try {
    const activity = runToolFor(spec!)({
      runId: context.runId,
      toolCallId: call.id,
      tenant: context.tenant,
      stepId: base.id,
      name: call.name,
      arguments: call.arguments,
      workspace: context.workspace,
      maxOutputBytes: context.limits.maxToolOutputBytes,
      ...(context.stream === 'full' ? { eventBase: turn.events.base } : {}),
    });
    const out = await (turn.control ? turn.control.track(activity) : activity);
    return {
      ...base,
      content: out.content,
      isError: out.isError,
      metrics: { startedAt, durationMs: Date.now() - startedAt },
      ...(out.metadata ? { metadata: out.metadata } : {}),
    };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return {
      ...base,
      content: `Error: tool "${call.name}" did not finish: ${failureMessage(err)}`,
      isError: true,
      metrics: { startedAt, durationMs: Date.now() - startedAt },
    };
  }
}
