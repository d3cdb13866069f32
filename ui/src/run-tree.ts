// The viewer's model of one run tree, folded from the root's event stream: one node per run (the root, agents used
// as tools, a workflow agent's sub-agents), each with its steps, tool calls, approvals, usage and timings. Pure and
// DOM-free, so it is unit-tested in jest and the page only renders what it holds.
import type { WireEvent, Usage } from '../../common';
import { isKnownEventType } from '../../common/event-types';
import { statusOfTerminalEvent } from '../../common/run-statuses';
import { countOffset } from './run-offsets';
import { addUsage, applyDelta, applySnapshot, findCall, restart, stepOf, ZERO } from './run-steps';
import type { ApprovalView, RunTree, RunView } from './run-view';

export { callOf, runIdOf } from './run-steps';

export type * from './run-view';

export function emptyTree(): RunTree {
  return {
    runs: {},
    approvals: [],
    lastOffset: -1,
    logs: {},
    unexplained: {},
    pointers: 0,
    lastSeq: -1,
    durableEvents: 0,
    deltas: 0,
    duplicates: 0,
    gaps: 0,
    ended: false,
  };
}

function runOf(tree: RunTree, event: WireEvent): RunView {
  let run = tree.runs[event.runId];
  if (!run) {
    run = {
      runId: event.runId,
      agent: event.agent,
      depth: event.depth,
      parentRunId: event.parentRunId,
      nestingType: event.nestingType,
      toolCallId: event.toolCallId,
      status: 'running',
      paused: false,
      steps: [],
      children: [],
      ownUsage: ZERO,
      retries: 0,
      notices: [],
    };
    tree.runs[event.runId] = run;
    if (event.depth === 0) tree.rootRunId ??= event.runId;
    const parent = event.parentRunId ? tree.runs[event.parentRunId] : undefined;
    if (parent) adopt(parent, run);
    // Live deltas can run ahead of the log: children seen before this run are its children too.
    for (const other of Object.values(tree.runs)) if (other.parentRunId === run.runId) adopt(run, other);
  }
  // Children are in the order the log started them, not the order their first (possibly live) event arrived in.
  if (event.seq === undefined && run.startOffset === undefined) {
    // A run with its own log starts at 0 of it: its siblings are ordered by when they arrived instead.
    run.startOffset = (event as { ownLog?: boolean }).ownLog ? tree.durableEvents : event.offset;
    const parent = run.parentRunId ? tree.runs[run.parentRunId] : undefined;
    if (parent) parent.children.sort((a, b) => startOf(tree, a) - startOf(tree, b));
  }
  return run;
}

const startOf = (tree: RunTree, runId: string) => tree.runs[runId]?.startOffset ?? Number.MAX_SAFE_INTEGER;

function adopt(parent: RunView, child: RunView): void {
  if (!parent.children.includes(child.runId)) parent.children.push(child.runId);
  // An agent used as a tool: its parent's call points at it.
  if (child.toolCallId) {
    const call = findCall(parent, child.toolCallId);
    if (call) call.childRunId = child.runId;
  }
}

function approvalEvent(tree: RunTree, run: RunView, event: WireEvent): void {
  const data = event.data ?? {};
  const toolCallId = String(data.toolCallId ?? event.toolCallId ?? '');
  if (event.type === 'TOOL_AUTH_REQUIRED') {
    if (!tree.approvals.some((a) => a.toolCallId === toolCallId && a.runId === run.runId)) {
      tree.approvals.push({
        toolCallId,
        runId: run.runId,
        agent: run.agent,
        tool: String(data.tool ?? ''),
        args: data.args,
        reason: String(data.reason ?? ''),
        requestedAt: event.timestamp,
        ...(str(data.binding) ? { binding: str(data.binding) } : {}),
      });
    }
    const call = findCall(run, toolCallId);
    if (call) call.status = 'waiting_approval';
    return;
  }
  if (event.type === 'TOOL_AUTH_EXPIRED') {
    // Escalated: the call waits on under a new binding, for another role.
    const waiting = tree.approvals.find((a) => a.toolCallId === toolCallId && a.runId === run.runId && !a.decision);
    if (waiting && str(data.binding))
      Object.assign(waiting, { binding: str(data.binding), escalatedTo: str(data.escalatedTo) });
    return;
  }
  const granted = event.type === 'TOOL_AUTH_GRANTED';
  const decision = {
    outcome: granted ? ('granted' as const) : ('denied' as const),
    by: str(data.by),
    reason: str(data.reason),
    message: str(data.message),
    remember: data.remember === true,
  };
  const approval = tree.approvals.find((a) => a.toolCallId === toolCallId && a.runId === run.runId);
  if (approval) approval.decision = decision;
  else if (!granted)
    tree.approvals.push({
      toolCallId,
      runId: run.runId,
      agent: run.agent,
      tool: String(data.tool ?? ''),
      args: undefined,
      reason: String(data.reason ?? ''),
      requestedAt: event.timestamp,
      decision,
    });
  const call = findCall(run, toolCallId);
  if (call) call.status = granted ? 'running' : 'denied';
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** An event's data in one short line (for events the viewer has no view of). */
const summary = (data: unknown): string => {
  const json = data === undefined ? '' : JSON.stringify(data);
  return json.length > 200 ? `${json.slice(0, 199)}…` : json;
};

function describeError(error: unknown): string {
  if (!error || typeof error !== 'object') return String(error ?? 'failed');
  const e = error as { type?: unknown; message?: unknown };
  return [str(e.type), str(e.message)].filter(Boolean).join(': ') || JSON.stringify(error);
}

/** Folds one event into the tree (in place; returns whether it changed anything). */
export function applyEvent(tree: RunTree, event: WireEvent, eventId?: string): boolean {
  // Live deltas carry the offset of the durable event before them and their own lane position.
  if (event.seq !== undefined) {
    if (event.seq <= tree.lastSeq) {
      tree.duplicates++;
      return false;
    }
    tree.lastSeq = event.seq;
    tree.deltas++;
  } else {
    if (!countOffset(tree, event)) {
      tree.duplicates++;
      return false;
    }
    tree.durableEvents++;
  }
  if (eventId) tree.lastEventId = eventId;
  const run = runOf(tree, event);
  switch (event.type) {
    case 'RUN_STARTED':
      run.startedAt = event.timestamp;
      run.input = event.data?.input;
      run.kind = str(event.data?.kind);
      break;
    case 'STEP_DELTA':
      applyDelta(run, event);
      break;
    case 'STEP_COMPLETED':
      if (event.snapshot) applySnapshot(tree, run, event.snapshot);
      break;
    case 'STEP_RETRY': {
      run.retries++;
      const reason = str(event.data?.reason) ?? 'retry';
      if (event.toolCallId) {
        const call = findCall(run, event.toolCallId);
        if (call) call.retries++;
        run.notices.push({
          type: event.type,
          at: event.timestamp,
          text: `tool call ${event.toolCallId}: attempt ${event.attempt ?? '?'} (${reason})`,
        });
      } else if (event.stepId) {
        const step = stepOf(run, event.stepId, 'assistant');
        if (step.live && (event.attempt ?? 1) > step.attempt) restart(step, event.attempt ?? 1);
        // A user message's interrupt names an attempt above any real one (INTERRUPTED_ATTEMPT,
        // workflows/lifecycle/user-messages.ts).
        const interrupted = (event.attempt ?? 1) >= 1_000_000;
        run.notices.push({
          type: event.type,
          at: event.timestamp,
          text: interrupted
            ? `model call interrupted (${reason})`
            : `model call attempt ${event.attempt ?? '?'} (${reason})`,
        });
      }
      break;
    }
    case 'USER_MESSAGE':
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `message${str(event.data?.by) ? ` from ${String(event.data?.by)}` : ''}${event.data?.mode === 'interrupt' ? ' (interrupt)' : ''}: ${str(event.data?.text) ?? ''}`,
      });
      break;
    case 'MODEL_UNAVAILABLE':
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `model unavailable (attempt ${event.attempt ?? '?'}): ${str(event.data?.reason) ?? ''}`,
      });
      break;
    case 'CONTEXT_COMPACTED':
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `context compacted: ${String(event.data?.bytesBefore ?? '?')} → ${String(event.data?.bytesAfter ?? '?')} bytes`,
      });
      break;
    case 'CONTEXT_CONDENSED':
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `context condensed: steps ${String(event.data?.fromStep ?? '?')}–${String(Number(event.data?.toStep ?? 0) - 1)} summarised, ${String(event.data?.bytesBefore ?? '?')} → ${String(event.data?.bytesAfter ?? '?')} bytes`,
      });
      break;
    case 'ERROR':
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `${str(event.data?.branch) ? `branch ${String(event.data?.branch)}: ` : ''}${describeError(event.data?.error)}`,
      });
      break;
    case 'AGENT_STATE':
      run.position = { ...run.position, ...(event.data as RunView['position']) };
      break;
    case 'RUN_PAUSED':
      run.paused = true;
      run.pauseReason = str(event.data?.reason);
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `paused${str(event.data?.by) ? ` by ${String(event.data?.by)}` : ''}${run.pauseReason ? `: ${run.pauseReason}` : ''}`,
      });
      break;
    case 'RUN_RESUMED':
      run.paused = false;
      run.pauseReason = undefined;
      run.notices.push({
        type: event.type,
        at: event.timestamp,
        text: `resumed${str(event.data?.by) ? ` by ${String(event.data?.by)}` : ''}`,
      });
      break;
    case 'TOOL_CALLBACK_WAITING': {
      // A callback tool started its work and waits for the result (until its tool step arrives).
      const call = findCall(run, String(event.data?.toolCallId ?? ''));
      if (call && call.status !== 'done' && call.status !== 'error') {
        call.status = 'waiting_callback';
        if (typeof event.data?.expiresAt === 'number') call.callbackExpiresAt = event.data.expiresAt;
      }
      break;
    }
    case 'TOOL_AUTH_REQUIRED':
    case 'TOOL_AUTH_EXPIRED':
    case 'TOOL_AUTH_GRANTED':
    case 'TOOL_AUTH_DENIED':
      approvalEvent(tree, run, event);
      break;
    case 'RUN_COMPLETED':
    case 'RUN_FAILED':
    case 'RUN_CANCELLED':
      run.status = statusOfTerminalEvent(event.type)!;
      run.endedAt = event.timestamp;
      run.paused = false;
      if (event.usage) run.treeUsage = event.usage;
      if (event.data?.ownUsage) run.ownUsage = event.data.ownUsage as Usage;
      run.response = str(event.data?.response);
      run.terminationReason = str(event.data?.terminationReason);
      if (event.data?.error) run.error = describeError(event.data.error);
      if (event.depth === 0) tree.ended = true;
      // Approvals of a finished run can no longer be decided.
      for (const a of tree.approvals)
        if (a.runId === run.runId && !a.decision) a.decision = { outcome: 'denied', reason: 'run ended' };
      break;
    default:
      // A type this viewer does not know (from a run on a newer release): shown as it is, never dropped.
      if (!isKnownEventType(event.type))
        run.notices.push({
          type: event.type,
          at: event.timestamp,
          text: `${event.type} ${summary(event.data)}`.trim(),
        });
  }
  return true;
}

/** Usage of a run and everything nested in it: what it reported at its end, or the live sum of its steps. */
export function treeUsage(tree: RunTree, runId: string): Usage {
  const run = tree.runs[runId];
  if (!run) return ZERO;
  if (run.treeUsage) return run.treeUsage;
  return run.children.reduce((sum, child) => addUsage(sum, treeUsage(tree, child)), run.ownUsage);
}

/** Approvals still waiting for a person, oldest first. */
export function pendingApprovals(tree: RunTree): ApprovalView[] {
  return tree.approvals.filter((a) => !a.decision);
}
