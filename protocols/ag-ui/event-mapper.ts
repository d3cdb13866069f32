// Agio's run events as AG-UI 1.0 events, one run tree at a time: committed steps and their deltas become text, reasoning
// and tool-call sequences (each model step inside STEP_STARTED/STEP_FINISHED), nested runs become subagents, a workflow
// agent's position becomes state (snapshot, then JSON Patch deltas), and the root's end becomes RUN_FINISHED or
// RUN_ERROR. Pure: the driver (run-driver.ts) feeds it every event of the tree and decides which output is sent.
import { EventType, type Event as AgUiEvent, type TokenUsage } from '@ag-ui/core';
import { addUsage, type AgioEvent, type Usage } from '../../common';
import type { PendingApproval } from './interrupts';
import { statePatch } from './state-patch';

/** What one open subagent (a nested run) is known by. */
interface Subagent {
  runId: string;
  name: string;
  parentSubagentRunId?: string;
  parentToolCallId?: string;
  parentMessageId?: string;
}

/** A model step being streamed: its message ids and what has been sent of it. */
interface OpenStep {
  owner?: string;
  stepName: string;
  messageId: string;
  text?: string;
  reasoning?: string;
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
  private readonly steps = new Map<string, OpenStep>();
  /** Each step's newest attempt (an earlier attempt's text is closed and a new message begins). */
  private readonly attempts = new Map<string, number>();
  /** Assistant message of each tool call (a subagent's parent message). */
  private readonly callMessages = new Map<string, string>();
  private readonly approvals = new Map<string, PendingApproval>();
  private state: Record<string, unknown> | undefined;
  private usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  /** The root's terminal event has been mapped. */
  ended = false;

  constructor(private readonly run: { threadId: string; runId: string; rootRunId: string }) {}

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
        return this.delta(e.stepId, e.attempt ?? 1, e.delta, owner);
      case 'STEP_RETRY': {
        // The earlier attempt's message stays as it was sent; the new attempt streams into a message of its own.
        this.attempts.set(e.stepId, e.attempt);
        return this.closeStep(e.stepId);
      }
      case 'STEP_COMPLETED':
        return this.completed(e.stepId, e.snapshot, owner);
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
        return [this.custom(e, tag)];
      }
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

  /** The events that close this AG-UI run on an interrupt (undefined when no call waits): subagents suspend first. */
  interrupt(interrupts: { id: string; subagentRunId?: string }[], extra: AgUiEvent[] = []): AgUiEvent[] {
    const out: AgUiEvent[] = [...extra];
    for (const open of [...this.steps.keys()]) out.push(...this.closeStep(open));
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
      outcome: { type: 'interrupt', interrupts: interrupts as never },
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
      ...(call && this.callMessages.has(call) ? { parentMessageId: this.callMessages.get(call) } : {}),
    };
    this.subagents.set(runId, sub);
    return [this.subagentStarted(sub)];
  }

  /** A nested run's end: what it left open is closed, then SUBAGENT_FINISHED (its answer) or SUBAGENT_ERROR. */
  private endSubagent(e: AgioEvent, runId: string): AgUiEvent[] {
    if (!this.subagents.has(runId)) return [];
    const out = this.closeOwnedBy(runId);
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
    const out: AgUiEvent[] = [];
    for (const open of [...this.steps.keys()]) out.push(...this.closeStep(open));
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

  /** The step a delta or a commit belongs to, opened (STEP_STARTED) when first seen. */
  private stepOf(stepId: string, owner: string | undefined, out: AgUiEvent[], index?: number): OpenStep {
    let open = this.steps.get(stepId);
    if (!open) {
      const attempt = this.attempts.get(stepId) ?? 1;
      const messageId = attempt > 1 ? `${stepId}~${attempt}` : stepId;
      open = { owner, stepName: `step ${index ?? stepId.split(':').pop()}`, messageId };
      this.steps.set(stepId, open);
      out.push({ type: EventType.STEP_STARTED, stepName: open.stepName, ...(owner ? { subagentRunId: owner } : {}) });
    }
    return open;
  }

  private delta(stepId: string, attempt: number, d: AgioEvent['delta'], owner: string | undefined): AgUiEvent[] {
    if (!d || attempt < (this.attempts.get(stepId) ?? 1)) return [];
    const out: AgUiEvent[] = [];
    const tag = owner ? { subagentRunId: owner } : {};
    if (d.reasoningContent) {
      const open = this.stepOf(stepId, owner, out);
      const messageId = `${open.messageId}:reasoning`;
      if (open.reasoning === undefined) {
        out.push({ type: EventType.REASONING_START, messageId, ...tag });
        out.push({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning', ...tag });
        open.reasoning = '';
      }
      open.reasoning += d.reasoningContent;
      out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta: d.reasoningContent, ...tag });
    }
    if (d.content) {
      const open = this.stepOf(stepId, owner, out);
      out.push(...this.closeReasoning(open, tag));
      if (open.text === undefined) {
        out.push({ type: EventType.TEXT_MESSAGE_START, messageId: open.messageId, role: 'assistant', ...tag });
        open.text = '';
      }
      open.text += d.content;
      out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta: d.content, ...tag });
    }
    return out;
  }

  /** A committed step: what its deltas did not send yet, its tool calls, or a tool's result. */
  private completed(stepId: string, step: Extract<AgioEvent, { type: 'STEP_COMPLETED' }>['snapshot'], owner?: string) {
    const out: AgUiEvent[] = [];
    const tag = owner ? { subagentRunId: owner } : {};
    if (step.role === 'tool') {
      if (step.toolCallId)
        out.push({
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${step.id}:result`,
          toolCallId: step.toolCallId,
          content: step.content ?? '',
          role: 'tool',
          ...tag,
        });
      return out;
    }
    if (step.role !== 'assistant') return out;
    if (step.usage) this.usage = addUsage(this.usage, step.usage);
    const open = this.stepOf(stepId, owner, out, step.index);
    const reasoning = step.reasoningContent ?? '';
    if (reasoning.length > (open.reasoning ?? '').length)
      out.push(
        ...this.delta(
          stepId,
          this.attempts.get(stepId) ?? 1,
          { reasoningContent: rest(reasoning, open.reasoning) },
          owner,
        ),
      );
    const text = step.content ?? '';
    if (text.length > (open.text ?? '').length)
      out.push(...this.delta(stepId, this.attempts.get(stepId) ?? 1, { content: rest(text, open.text) }, owner));
    out.push(...this.closeMessages(open, tag));
    for (const call of step.toolCalls ?? []) {
      this.callMessages.set(call.id, open.messageId);
      out.push(
        {
          type: EventType.TOOL_CALL_START,
          toolCallId: call.id,
          toolCallName: call.name,
          parentMessageId: open.messageId,
          ...tag,
        },
        { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.arguments, ...tag },
        { type: EventType.TOOL_CALL_END, toolCallId: call.id, ...tag },
      );
    }
    out.push(...this.closeStep(stepId));
    return out;
  }

  private closeReasoning(open: OpenStep, tag: { subagentRunId?: string }): AgUiEvent[] {
    if (open.reasoning === undefined) return [];
    const messageId = `${open.messageId}:reasoning`;
    open.reasoning = undefined;
    return [
      { type: EventType.REASONING_MESSAGE_END, messageId, ...tag },
      { type: EventType.REASONING_END, messageId, ...tag },
    ];
  }

  private closeMessages(open: OpenStep, tag: { subagentRunId?: string }): AgUiEvent[] {
    const out = this.closeReasoning(open, tag);
    if (open.text !== undefined) out.push({ type: EventType.TEXT_MESSAGE_END, messageId: open.messageId, ...tag });
    open.text = undefined;
    return out;
  }

  private closeStep(stepId: string): AgUiEvent[] {
    const open = this.steps.get(stepId);
    if (!open) return [];
    const tag = open.owner ? { subagentRunId: open.owner } : {};
    this.steps.delete(stepId);
    return [...this.closeMessages(open, tag), { type: EventType.STEP_FINISHED, stepName: open.stepName, ...tag }];
  }

  private closeOwnedBy(runId: string): AgUiEvent[] {
    return [...this.steps.entries()].filter(([, s]) => s.owner === runId).flatMap(([id]) => this.closeStep(id));
  }
}

/** What `whole` adds to `sent` (the whole text when what was sent is not its beginning: a retried step). */
function rest(whole: string, sent: string | undefined): string {
  return sent && whole.startsWith(sent) ? whole.slice(sent.length) : whole;
}
