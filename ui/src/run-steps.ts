// Steps and tool calls of one run in the viewer's tree: a step streams in from its deltas (a newer attempt starts it
// over) until its committed snapshot replaces it; a tool step's result closes its call.
import type { WireEvent, Step, Usage } from '../../common';
import type { RunTree, RunView, StepView, ToolCallView } from './run-view';

export const ZERO: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
export const addUsage = (a: Usage, b?: Usage): Usage =>
  b
    ? {
        promptTokens: a.promptTokens + b.promptTokens,
        completionTokens: a.completionTokens + b.completionTokens,
        totalTokens: a.totalTokens + b.totalTokens,
        ...(a.costUsd !== undefined || b.costUsd !== undefined ? { costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0) } : {}),
        ...(a.costUnknown || b.costUnknown ? { costUnknown: true } : {}),
      }
    : a;

/** The index of a step id (`<runId>:<index>`). */
function stepIndex(stepId: string): number {
  const n = Number(stepId.slice(stepId.lastIndexOf(':') + 1));
  return Number.isInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/** The run a step belongs to (its id is `<runId>:<index>`). */
export const runIdOf = (step: Pick<StepView, 'stepId'>) => step.stepId.slice(0, step.stepId.lastIndexOf(':'));

/** A tool call of run `runId`, by id. */
export function callOf(tree: RunTree, runId: string, callId: string): ToolCallView | undefined {
  const run = tree.runs[runId];
  return run ? findCall(run, callId) : undefined;
}

export function findCall(run: RunView, callId: string): ToolCallView | undefined {
  for (const step of run.steps) for (const call of step.toolCalls) if (call.id === callId) return call;
  return undefined;
}

export function stepOf(run: RunView, stepId: string, role: Step['role']): StepView {
  let step = run.steps.find((s) => s.stepId === stepId);
  if (!step) {
    step = {
      stepId,
      index: stepIndex(stepId),
      role,
      content: '',
      reasoning: '',
      toolCalls: [],
      live: true,
      attempt: 1,
    };
    const at = run.steps.findIndex((s) => s.index > step!.index);
    if (at === -1) run.steps.push(step);
    else run.steps.splice(at, 0, step);
  }
  return step;
}

/** Restarts a streaming step for a newer attempt: the earlier attempt's partial text is not part of the answer. */
export function restart(step: StepView, attempt: number): void {
  step.attempt = attempt;
  step.content = '';
  step.reasoning = '';
  step.toolCalls = [];
}

export function applyDelta(run: RunView, event: WireEvent): void {
  if (!event.stepId || !event.delta) return;
  const step = stepOf(run, event.stepId, 'assistant');
  if (!step.live) return; // its committed snapshot is already here
  const attempt = event.attempt ?? 1;
  if (attempt < step.attempt) return;
  if (attempt > step.attempt) restart(step, attempt);
  step.content += event.delta.content ?? '';
  step.reasoning += event.delta.reasoningContent ?? '';
  for (const piece of event.delta.toolCalls ?? []) {
    const call = (step.toolCalls[piece.index] ??= {
      id: piece.id ?? '',
      name: '',
      arguments: '',
      status: 'streaming',
      retries: 0,
    });
    if (piece.id) call.id = piece.id;
    if (piece.name) call.name += piece.name;
    call.arguments += piece.arguments ?? '';
  }
}

export function applySnapshot(tree: RunTree, run: RunView, snapshot: Step): void {
  const step = stepOf(run, snapshot.id, snapshot.role);
  const earlier = new Map(step.toolCalls.map((c) => [c.id, c]));
  Object.assign(step, {
    index: snapshot.index,
    role: snapshot.role,
    content: snapshot.content ?? '',
    reasoning: snapshot.reasoningContent ?? '',
    toolCallId: snapshot.toolCallId,
    name: snapshot.name,
    isError: snapshot.isError,
    live: false,
    usage: snapshot.usage,
    durationMs: snapshot.metrics?.durationMs,
    firstTokenMs: snapshot.metrics?.firstTokenMs,
    toolCalls: (snapshot.toolCalls ?? []).map((c): ToolCallView => {
      const seen = earlier.get(c.id);
      const child = Object.values(tree.runs).find((r) => r.parentRunId === run.runId && r.toolCallId === c.id);
      const waiting = tree.approvals.some((a) => a.toolCallId === c.id && !a.decision);
      return {
        id: c.id,
        name: c.name,
        arguments: c.arguments,
        status: seen && seen.status !== 'streaming' ? seen.status : waiting ? 'waiting_approval' : 'running',
        retries: seen?.retries ?? 0,
        ...(child ? { childRunId: child.runId } : {}),
      };
    }),
  });
  if (snapshot.role === 'assistant') run.ownUsage = addUsage(run.ownUsage, snapshot.usage);
  if (snapshot.role === 'tool' && snapshot.toolCallId) {
    const call = findCall(run, snapshot.toolCallId);
    if (call) {
      call.result = snapshot.content ?? '';
      call.resultStep = snapshot.index;
      call.durationMs = snapshot.metrics?.durationMs;
      if (call.status !== 'denied') call.status = snapshot.isError ? 'error' : 'done';
    }
  }
}
