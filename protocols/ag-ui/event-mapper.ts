// Agio's run events as AG-UI 1.0 events, one run tree at a time: model and tool steps through step-events.ts, nested
// runs as subagents, waiting calls kept for the interrupt (approvals) or the client (its own tools), a workflow agent's
// position as state (snapshot, then JSON Patch deltas), everything else as CUSTOM `agio.<TYPE>`, and the root's end as
// RUN_FINISHED or RUN_ERROR. Pure: run-stream.ts feeds it every event of the tree and decides which output is sent.
import { EventType, type Event as AgUiEvent, type TokenUsage } from '@ag-ui/core';
import { addUsage, type AgioEvent, type Usage } from '../../common';
import type { PausedRun, PendingApproval } from './interrupts';
import { statePatch } from './state-patch';
import { StepEvents } from './step-events';

/** What one open subagent (a nested run) is known by. */
interface Subagent {
  runId: string;
  name: string;
  parentSubagentRunId?: string;
  parentToolCallId?: string;
  parentMessageId?: string;
}

/** The AG-UI token usage of an Agio usage (one entry: Agio sums a run's calls across models). */
export function tokenUsageOf(usage: Usage): TokenUsage {
  return {
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    ...(usage.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
    ...(usage.cachedPromptTokens !== undefined ? { cachedInputTokens: usage.cachedPromptTokens } : {}),
  };
}

/** Maps the events of one Agio run tree to the AG-UI events of one AG-UI run. */
export class AgUiMapper {
  private readonly subagents = new Map<string, Subagent>();
  private readonly steps = new StepEvents((usage) => (this.usage = addUsage(this.usage, usage)));
  private readonly approvals = new Map<string, PendingApproval>();
  /** Client tool calls waiting for the client's result, in call order. */
  private readonly clientCalls = new Set<string>();
  /** Runs of the tree paused now (RUN_PAUSED not yet followed by RUN_RESUMED). */
  private readonly pausedRuns = new Map<string, PausedRun>();
  private state: Record<string, unknown> | undefined;
  private usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  /** The root's terminal event has been mapped. */
  ended = false;

  constructor(
    private readonly run: { threadId: string; runId: string; rootRunId: string },
    /** The client's own tools (RunAgentInput.tools): their waiting calls are the client's to answer. */
    private readonly clientTools: ReadonlySet<string> = new Set(),
  ) {}

  /** Whether run `runId` is this tree's root or a subagent open now (a live delta of another run has no place yet). */
  knows(runId: string): boolean {
    return runId === this.run.rootRunId || this.subagents.has(runId);
  }

  /** The client tool calls waiting for the client's result. */
  get waitingOnClient(): string[] {
    return [...this.clientCalls];
  }

  /** The tree's runs paused now, first paused first. */
  get paused(): PausedRun[] {
    return [...this.pausedRuns.values()];
  }

  /** The calls waiting for a decision now, oldest first. */
  get pending(): PendingApproval[] {
    return [...this.approvals.values()];
  }

  /** Forget the usage counted so far: an AG-UI run reports only the model calls made while it streamed. */
  resetUsage(): void {
    this.usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  }

  /** RUN_STARTED: the AG-UI run begins (`input`: the request, echoed). */
  started(input?: unknown): AgUiEvent[] {
    const { threadId, runId } = this.run;
    return [
      {
        type: EventType.RUN_STARTED,
        threadId,
        runId,
        protocolVersion: '1.0',
        ...(input !== undefined ? { input: input as never } : {}),
      },
    ];
  }

  /** A SUBAGENT_STARTED for each nested run still open: an AG-UI run that continues the tree after an interrupt. */
  reopened(): AgUiEvent[] {
    return [...this.subagents.values()].map((s) => this.subagentStarted(s));
  }

  /** The AG-UI events of one Agio event (none for those AG-UI has no counterpart of). */
  map(e: AgioEvent): AgUiEvent[] {
    const owner = e.runId === this.run.rootRunId ? undefined : e.runId;
    const tag = owner ? { subagentRunId: owner } : {};
    switch (e.type) {
      case 'RUN_STARTED':
        return owner && !this.subagents.has(owner) ? this.openSubagent(e, owner) : [];
      case 'STEP_DELTA':
        return this.steps.delta(e.stepId, e.attempt ?? 1, e.delta, owner);
      case 'STEP_RETRY': {
        return this.steps.retry(e.stepId, e.attempt);
      }
      case 'STEP_COMPLETED':
        if (e.snapshot.toolCallId) this.clientCalls.delete(e.snapshot.toolCallId);
        return this.steps.completed(e.stepId, e.snapshot, owner);
      case 'TOOL_AUTH_REQUIRED': {
        const d = e.data;
        this.approvals.set(d.toolCallId, {
          runId: d.runId,
          toolCallId: d.toolCallId,
          tool: d.tool,
          args: d.args,
          reason: d.reason,
          ...(d.binding ? { binding: d.binding } : {}),
          ...(d.expiresAt !== undefined ? { expiresAt: d.expiresAt } : {}),
        });
        return [this.custom(e, tag)];
      }
      case 'TOOL_AUTH_GRANTED':
      case 'TOOL_AUTH_DENIED':
        this.approvals.delete(e.data.toolCallId);
        return [this.custom(e, tag)];
      case 'TOOL_AUTH_EXPIRED': {
        const pending = this.approvals.get(e.data.toolCallId);
        if (e.data.action === 'deny') this.approvals.delete(e.data.toolCallId);
        else if (pending && e.data.action === 'escalate')
          this.approvals.set(e.data.toolCallId, { ...pending, binding: e.data.binding, expiresAt: e.data.expiresAt });
        else if (pending && e.data.action === 'pause') {
          // The run paused and the call waits on, with no deadline: its interrupt no longer says it expires.
          const { expiresAt: _expired, ...waiting } = pending;
          this.approvals.set(e.data.toolCallId, waiting);
        }
        return [this.custom(e, tag)];
      }
      case 'RUN_PAUSED':
        this.pausedRuns.set(e.runId, { runId: e.runId, ...e.data });
        return [this.custom(e, tag)];
      case 'RUN_RESUMED':
        this.pausedRuns.delete(e.runId);
        return [this.custom(e, tag)];
      case 'TOOL_CALLBACK_WAITING':
        if (this.clientTools.has(e.data.tool)) this.clientCalls.add(e.data.toolCallId);
        return [this.custom(e, tag)];
      case 'AGENT_STATE':
        return owner ? [this.custom(e, tag)] : this.stateChange({ ...this.state, ...e.data });
      case 'RUN_COMPLETED':
      case 'RUN_FAILED':
      case 'RUN_CANCELLED':
        return owner ? this.endSubagent(e, owner) : this.endRun(e);
      default:
        return [this.custom(e, tag)];
    }
  }

  /**
   * The events that close this AG-UI run while the durable run waits: subagents suspend first, then RUN_FINISHED with
   * the interrupts (approvals), or, when only client tool calls wait, a success naming them (`pendingToolCallIds`).
   */
  suspend(interrupts: { id: string; subagentRunId?: string }[], extra: AgUiEvent[] = []): AgUiEvent[] {
    const out: AgUiEvent[] = [...extra];
    out.push(...this.steps.closeAll());
    for (const sub of [...this.subagents.values()].reverse()) {
      const own = interrupts.filter((i) => i.subagentRunId === sub.runId).map((i) => i.id);
      out.push({
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: sub.runId,
        outcome: { type: 'suspended', ...(own.length ? { interruptIds: own } : {}) },
      });
    }
    out.push({
      type: EventType.RUN_FINISHED,
      threadId: this.run.threadId,
      runId: this.run.runId,
      outcome: interrupts.length
        ? { type: 'interrupt', interrupts: interrupts as never }
        : { type: 'success', pendingToolCallIds: this.waitingOnClient },
      ...this.usageField(),
    });
    return out;
  }

  private custom(e: AgioEvent, tag: { subagentRunId?: string }): AgUiEvent {
    return { type: EventType.CUSTOM, name: `agio.${e.type}`, value: e.data ?? {}, ...tag };
  }

  private subagentStarted(s: Subagent): AgUiEvent {
    return {
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: s.runId,
      name: s.name,
      ...(s.parentSubagentRunId ? { parentSubagentRunId: s.parentSubagentRunId } : {}),
      ...(s.parentToolCallId ? { parentToolCallId: s.parentToolCallId } : {}),
      ...(s.parentMessageId ? { parentMessageId: s.parentMessageId } : {}),
    };
  }

  private openSubagent(e: AgioEvent, runId: string): AgUiEvent[] {
    const parent = e.parentRunId && this.subagents.has(e.parentRunId) ? e.parentRunId : undefined;
    const call = e.toolCallId;
    const sub: Subagent = {
      runId,
      name: e.agent,
      ...(parent ? { parentSubagentRunId: parent } : {}),
      ...(call ? { parentToolCallId: call } : {}),
      ...(call && this.steps.messageOfCall(call) ? { parentMessageId: this.steps.messageOfCall(call) } : {}),
    };
    this.subagents.set(runId, sub);
    return [this.subagentStarted(sub)];
  }

  /** A nested run's end: what it left open is closed, then SUBAGENT_FINISHED (its answer) or SUBAGENT_ERROR. */
  private endSubagent(e: AgioEvent, runId: string): AgUiEvent[] {
    if (!this.subagents.has(runId)) return [];
    const out = this.steps.closeOwnedBy(runId);
    this.subagents.delete(runId);
    if (e.type === 'RUN_COMPLETED')
      out.push({ type: EventType.SUBAGENT_FINISHED, subagentRunId: runId, result: e.data.response ?? null });
    else
      out.push({
        type: EventType.SUBAGENT_ERROR,
        subagentRunId: runId,
        message: e.type === 'RUN_FAILED' ? e.data.error.message : 'the nested run was cancelled',
        code: e.type === 'RUN_FAILED' ? e.data.error.type : 'Cancelled',
      });
    return out;
  }

  /** The root's end: everything still open is closed, then RUN_FINISHED (success or cancelled) or RUN_ERROR. */
  private endRun(e: AgioEvent): AgUiEvent[] {
    this.ended = true;
    const out: AgUiEvent[] = this.steps.closeAll();
    for (const sub of [...this.subagents.keys()].reverse()) {
      out.push({ type: EventType.SUBAGENT_ERROR, subagentRunId: sub, message: 'ended with the run', code: 'Ended' });
      this.subagents.delete(sub);
    }
    const { threadId, runId } = this.run;
    if (e.type === 'RUN_COMPLETED') {
      if (e.data.state) out.push(...this.stateChange({ ...this.state, state: e.data.state }));
      out.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        result: e.data.response ?? null,
        outcome: { type: 'success' },
        ...this.usageField(),
      });
    } else if (e.type === 'RUN_CANCELLED')
      out.push({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' }, ...this.usageField() });
    else if (e.type === 'RUN_FAILED')
      out.push({
        type: EventType.RUN_ERROR,
        message: e.data.error.message,
        code: e.data.error.type,
        ...this.usageField(),
      });
    return out;
  }

  private usageField(): { usage?: TokenUsage[] } {
    return this.usage.totalTokens > 0 ? { usage: [tokenUsageOf(this.usage)] } : {};
  }

  private stateChange(next: Record<string, unknown>): AgUiEvent[] {
    const prev = this.state;
    this.state = next;
    if (!prev) return [{ type: EventType.STATE_SNAPSHOT, snapshot: next }];
    const delta = statePatch(prev, next);
    return delta.length ? [{ type: EventType.STATE_DELTA, delta }] : [];
  }
}
