// The timeline's model of a run tree, folded from the same stream as the tree view: per run, its span and its bars on
// a time axis (model calls with their first token, tool calls, agents used as tools, approval waits, pauses, provider
// outages). Timings come from the steps' metrics where they have them and from the events' timestamps otherwise
// (a call waits from the assistant step that asked for it, an approval from its request to its decision). Pure.
import type { Step, Usage, WireEvent } from '../../../common';
import { statusOfTerminalEvent } from '../../../common/run-statuses';

/** What a bar stands for. */
export type BarKind = 'model' | 'tool' | 'agent' | 'approval' | 'pause' | 'outage';

/** How a bar's interval ended, or that it has not yet. */
export type BarStatus = 'running' | 'waiting' | 'ok' | 'error' | 'granted' | 'denied' | 'cancelled';

/** One interval on a run's lane. */
export interface Bar {
  id: string;
  runId: string;
  kind: BarKind;
  label: string;
  /** Epoch ms; `end` undefined while it lasts. */
  start: number;
  end?: number;
  status: BarStatus;
  /** Model calls: when the first token came. */
  firstTokenAt?: number;
  /** Model calls: when their first failed attempt showed (a retry), before `start` (the attempt that answered). */
  retriedFrom?: number;
  /** Times an earlier attempt was given up (STEP_RETRY). */
  retries: number[];
  attempt?: number;
  usage?: Usage;
  /** Agent tool calls: the run they started. */
  childRunId?: string;
  toolCallId?: string;
  /** A few more facts for the detail panel (who decided, a pause's budget, an outage's reason). */
  facts: Record<string, string>;
}

/** One run of the tree on the timeline. */
export interface TimelineRun {
  runId: string;
  agent: string;
  depth: number;
  parentRunId?: string;
  toolCallId?: string;
  startedAt?: number;
  endedAt?: number;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  bars: Bar[];
  children: string[];
  /** What the run reported at its end for its whole tree (sums of the bars before). */
  treeUsage?: Usage;
  /** The time of its latest event but live deltas: where a model call still streaming began. */
  lastAt?: number;
}

/** The timeline of one run tree. */
export interface Timeline {
  rootRunId?: string;
  runs: Record<string, TimelineRun>;
  bars: Record<string, Bar>;
  /** Earliest and latest timestamps seen. */
  first?: number;
  last?: number;
}

/** An empty timeline. */
export const emptyTimeline = (): Timeline => ({ runs: {}, bars: {} });

function runOf(t: Timeline, e: WireEvent): TimelineRun {
  let run = t.runs[e.runId];
  if (!run) {
    run = { runId: e.runId, agent: e.agent, depth: e.depth, status: 'running', bars: [], children: [] };
    if (e.parentRunId) run.parentRunId = e.parentRunId;
    if (e.toolCallId) run.toolCallId = e.toolCallId;
    t.runs[e.runId] = run;
    if (e.depth === 0) t.rootRunId ??= e.runId;
    const parent = e.parentRunId ? t.runs[e.parentRunId] : undefined;
    if (parent && !parent.children.includes(run.runId)) parent.children.push(run.runId);
    // An agent used as a tool: its parent's call is the agent's bar.
    const call = e.parentRunId && e.toolCallId ? t.bars[callBarId(e.parentRunId, e.toolCallId)] : undefined;
    if (call) Object.assign(call, { kind: 'agent', childRunId: run.runId });
    for (const other of Object.values(t.runs))
      if (other.parentRunId === run.runId && !run.children.includes(other.runId)) run.children.push(other.runId);
  }
  return run;
}

const callBarId = (runId: string, callId: string) => `call:${runId}:${callId}`;

function barOf(t: Timeline, run: TimelineRun, id: string, kind: BarKind, start: number, label: string): Bar {
  let bar = t.bars[id];
  if (!bar) {
    bar = { id, runId: run.runId, kind, label, start, status: 'running', retries: [], facts: {} };
    t.bars[id] = bar;
    run.bars.push(bar);
  }
  return bar;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A model call's bar from its committed step: the answering attempt's metrics, or the event's time. */
function modelStep(t: Timeline, run: TimelineRun, step: Step, at: number): void {
  const bar = barOf(t, run, `model:${step.id}`, 'model', at, `model call ${step.index}`);
  const m = step.metrics ?? {};
  const earliest = bar.start;
  bar.start = m.startedAt ?? (m.durationMs !== undefined ? at - m.durationMs : bar.start);
  bar.end = m.durationMs !== undefined ? bar.start + m.durationMs : at;
  if (earliest < bar.start && bar.retries.length) bar.retriedFrom = earliest;
  if (m.firstTokenMs !== undefined) bar.firstTokenAt = bar.start + m.firstTokenMs;
  if (m.attempt !== undefined) bar.attempt = m.attempt;
  if (step.usage) bar.usage = step.usage;
  bar.status = 'ok';
  const calls = step.toolCalls ?? [];
  if (calls.length) bar.facts.calls = calls.map((c) => c.name).join(', ');
  const outage = t.bars[`outage:${step.id}`];
  if (outage && outage.end === undefined) outage.end = Math.max(outage.start, bar.start);
  // Each call waits from here until its tool step (or its approval) says otherwise.
  for (const call of calls) {
    const tool = barOf(t, run, callBarId(run.runId, call.id), 'tool', at, call.name);
    tool.toolCallId = call.id;
    const child = run.children.find((id) => t.runs[id]?.toolCallId === call.id);
    if (child) Object.assign(tool, { kind: 'agent', childRunId: child });
  }
}

/** A tool call's bar from its result step: its own metrics where the workflow recorded them. */
function toolStep(t: Timeline, run: TimelineRun, step: Step, at: number): void {
  const id = callBarId(run.runId, step.toolCallId ?? step.id);
  if (t.bars[id]?.status === 'denied' || step.metadata?.permission === 'denied') {
    const denied = t.bars[id];
    if (denied) removeBar(t, run, denied);
    return;
  }
  const bar = barOf(t, run, id, 'tool', at, step.name ?? 'tool');
  const m = step.metrics ?? {};
  if (m.startedAt !== undefined) bar.start = m.startedAt;
  bar.end = m.durationMs !== undefined ? bar.start + m.durationMs : at;
  bar.status = step.isError ? 'error' : 'ok';
  bar.toolCallId = step.toolCallId;
  if (step.usage) bar.usage = step.usage;
  const child = str(step.metadata?.childRunId);
  if (child) {
    bar.kind = 'agent';
    bar.childRunId = child;
  }
}

function removeBar(t: Timeline, run: TimelineRun, bar: Bar): void {
  delete t.bars[bar.id];
  run.bars = run.bars.filter((b) => b !== bar);
}

function approval(t: Timeline, run: TimelineRun, e: WireEvent): void {
  const callId = String(e.data?.toolCallId ?? e.toolCallId ?? '');
  const tool = str(e.data?.tool) ?? 'tool';
  const bar = barOf(t, run, `approval:${run.runId}:${callId}`, 'approval', e.timestamp, `approval: ${tool}`);
  bar.toolCallId = callId;
  const call = t.bars[callBarId(run.runId, callId)];
  if (e.type === 'TOOL_AUTH_REQUIRED') {
    bar.status = 'waiting';
    bar.facts.reason = String(e.data?.reason ?? '');
    if (call && call.end === undefined) call.status = 'waiting';
    return;
  }
  bar.end = e.timestamp;
  bar.status = e.type === 'TOOL_AUTH_GRANTED' ? 'granted' : 'denied';
  const by = str(e.data?.by);
  if (by) bar.facts.by = by;
  const message = str(e.data?.message) ?? (e.type === 'TOOL_AUTH_DENIED' ? str(e.data?.reason) : undefined);
  if (message) bar.facts.message = message;
  if (!call || call.end !== undefined) return;
  if (bar.status === 'denied') removeBar(t, run, call);
  else Object.assign(call, { start: e.timestamp, status: 'running' });
}

function pause(t: Timeline, run: TimelineRun, e: WireEvent): void {
  const open = run.bars.find((b) => b.kind === 'pause' && b.end === undefined);
  if (e.type === 'RUN_RESUMED') {
    if (open) Object.assign(open, { end: e.timestamp, status: 'ok' });
    return;
  }
  if (open) return;
  const reason = str(e.data?.reason);
  const bar = barOf(
    t,
    run,
    `pause:${run.runId}:${e.timestamp}`,
    'pause',
    e.timestamp,
    `paused${reason ? `: ${reason}` : ''}`,
  );
  bar.status = 'waiting';
  const by = str(e.data?.by);
  if (by) bar.facts.by = by;
  const budget = e.data?.budget as { kind?: string; limitUsd?: number; spentUsd?: number } | undefined;
  if (budget) bar.facts.budget = `${budget.kind ?? '?'} budget: spent $${budget.spentUsd} of $${budget.limitUsd}`;
}

function modelEvent(t: Timeline, run: TimelineRun, e: WireEvent): void {
  if (!e.stepId) return;
  const start = Math.min(run.lastAt ?? e.timestamp, e.timestamp);
  const bar = barOf(t, run, `model:${e.stepId}`, 'model', start, `model call ${e.stepId.split(':').pop()}`);
  if (bar.status !== 'running') return; // its committed step is here already
  if (e.type === 'STEP_DELTA') {
    if ((e.attempt ?? 1) >= (bar.attempt ?? 1)) bar.firstTokenAt ??= e.timestamp;
    return;
  }
  bar.attempt = e.attempt;
  bar.firstTokenAt = undefined;
  if (e.type === 'STEP_RETRY') {
    bar.retries.push(e.timestamp);
    return;
  }
  const data = e.data ?? {};
  const outage = barOf(t, run, `outage:${e.stepId}`, 'outage', Number(data.failingSince ?? e.timestamp), 'outage');
  outage.status = 'waiting';
  outage.label = `provider outage: ${str(data.reason) ?? 'unavailable'}`;
  outage.attempt = e.attempt;
  outage.facts.errorType = str(data.errorType) ?? '';
}

/** Folds one event into the timeline (in place). Repeats must be dropped before (the tree view's fold says which). */
export function applyTimelineEvent(t: Timeline, e: WireEvent): void {
  const run = runOf(t, e);
  t.first = Math.min(t.first ?? e.timestamp, e.timestamp);
  t.last = Math.max(t.last ?? e.timestamp, e.timestamp);
  switch (e.type) {
    case 'RUN_STARTED':
      run.startedAt = e.timestamp;
      break;
    case 'STEP_DELTA':
    case 'STEP_RETRY':
    case 'MODEL_UNAVAILABLE':
      if (e.type === 'STEP_RETRY' && e.toolCallId)
        t.bars[callBarId(run.runId, e.toolCallId)]?.retries.push(e.timestamp);
      else modelEvent(t, run, e);
      break;
    case 'STEP_COMPLETED':
      if (e.snapshot?.role === 'assistant') modelStep(t, run, e.snapshot, e.timestamp);
      else if (e.snapshot?.role === 'tool') toolStep(t, run, e.snapshot, e.timestamp);
      break;
    case 'TOOL_AUTH_REQUIRED':
    case 'TOOL_AUTH_GRANTED':
    case 'TOOL_AUTH_DENIED':
      approval(t, run, e);
      break;
    case 'RUN_PAUSED':
    case 'RUN_RESUMED':
      pause(t, run, e);
      break;
    case 'RUN_COMPLETED':
    case 'RUN_FAILED':
    case 'RUN_CANCELLED':
      run.status = statusOfTerminalEvent(e.type)!;
      run.endedAt = e.timestamp;
      run.startedAt ??= e.timestamp;
      if (e.usage) run.treeUsage = e.usage;
      // Whatever was still open ended with the run.
      for (const bar of run.bars)
        if (bar.end === undefined)
          Object.assign(bar, { end: e.timestamp, status: bar.kind === 'pause' ? 'ok' : 'cancelled' });
      break;
  }
  if (e.type !== 'STEP_DELTA') run.lastAt = e.timestamp;
}
