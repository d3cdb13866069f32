// The AG-UI events of Agio's model and tool steps: a model step inside STEP_STARTED/STEP_FINISHED, its reasoning and
// text streamed from its deltas (REASONING_*, TEXT_MESSAGE_*) and completed from the committed step, its tool calls as
// TOOL_CALL_START/ARGS/END under the step's message, and a tool step as TOOL_CALL_RESULT. A retried step's earlier
// attempt keeps what it sent; the new attempt streams into a message of its own.
import { EventType, type Event as AgUiEvent } from '@ag-ui/core';
import type { AgioEvent, Usage } from '../../common';

/** A model step being streamed: its message ids and what has been sent of it. */
interface OpenStep {
  owner?: string;
  stepName: string;
  messageId: string;
  /** The text and reasoning sent so far (their messages may have been closed since: a tool call began). */
  text?: string;
  reasoning?: string;
  textOpen?: boolean;
  reasoningOpen?: boolean;
  /** Tool calls streamed from deltas, by their index in the model's answer. */
  calls?: Map<number, StreamedCall>;
}

/** A tool call whose name and arguments arrive in deltas (OpenAI-style: id and name first, then argument pieces). */
interface StreamedCall {
  id?: string;
  name?: string;
  args: string;
  sent: number;
  started?: boolean;
  ended?: boolean;
}

/** The open steps of a run tree and what each has sent. */
export class StepEvents {
  private readonly steps = new Map<string, OpenStep>();
  /** Each step's newest attempt. */
  private readonly attempts = new Map<string, number>();
  /** The assistant message of each tool call (a subagent's parent message). */
  private readonly callMessages = new Map<string, string>();

  /** @param onUsage called with each committed model step's usage */
  constructor(private readonly onUsage: (usage: Usage) => void) {}

  /** The message that made tool call `id`, when this tree made it. */
  messageOfCall(id: string): string | undefined {
    return this.callMessages.get(id);
  }

  /** A step is attempted again: its open messages end, and the next attempt starts a message of its own. */
  retry(stepId: string, attempt: number): AgUiEvent[] {
    this.attempts.set(stepId, attempt);
    return this.closeStep(stepId);
  }

  /** Closes every open step (the run ends, or this AG-UI run does). */
  closeAll(): AgUiEvent[] {
    return [...this.steps.keys()].flatMap((id) => this.closeStep(id));
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

  delta(stepId: string, attempt: number, d: AgioEvent['delta'], owner: string | undefined): AgUiEvent[] {
    if (!d || attempt < (this.attempts.get(stepId) ?? 1)) return [];
    const out: AgUiEvent[] = [];
    const tag = owner ? { subagentRunId: owner } : {};
    if (d.reasoningContent) {
      const open = this.stepOf(stepId, owner, out);
      const messageId = `${open.messageId}:reasoning`;
      if (!open.reasoningOpen) {
        out.push({ type: EventType.REASONING_START, messageId, ...tag });
        out.push({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning', ...tag });
        open.reasoningOpen = true;
      }
      open.reasoning = (open.reasoning ?? '') + d.reasoningContent;
      out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta: d.reasoningContent, ...tag });
    }
    if (d.content) {
      const open = this.stepOf(stepId, owner, out);
      out.push(...this.closeReasoning(open, tag));
      if (!open.textOpen) {
        out.push({ type: EventType.TEXT_MESSAGE_START, messageId: open.messageId, role: 'assistant', ...tag });
        open.textOpen = true;
      }
      open.text = (open.text ?? '') + d.content;
      out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta: d.content, ...tag });
    }
    if (d.toolCalls?.length) {
      const open = this.stepOf(stepId, owner, out);
      out.push(...this.closeMessages(open, tag));
      open.calls ??= new Map();
      for (const piece of d.toolCalls) {
        const call = open.calls.get(piece.index) ?? { args: '', sent: 0 };
        open.calls.set(piece.index, call);
        call.id ??= piece.id;
        call.name ??= piece.name;
        call.args += piece.arguments ?? '';
        if (!call.started && call.id && call.name) {
          call.started = true;
          this.callMessages.set(call.id, open.messageId);
          out.push({
            type: EventType.TOOL_CALL_START,
            toolCallId: call.id,
            toolCallName: call.name,
            parentMessageId: open.messageId,
            ...tag,
          });
        }
        if (call.started && call.args.length > call.sent) {
          out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id!, delta: call.args.slice(call.sent), ...tag });
          call.sent = call.args.length;
        }
      }
    }
    return out;
  }

  /** A committed step: what its deltas did not send yet, its tool calls, or a tool's result. */
  completed(stepId: string, step: Extract<AgioEvent, { type: 'STEP_COMPLETED' }>['snapshot'], owner?: string) {
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
    if (step.usage) this.onUsage(step.usage);
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
    const streamed = [...(open.calls?.values() ?? [])];
    for (const call of step.toolCalls ?? []) {
      this.callMessages.set(call.id, open.messageId);
      const live = streamed.find((c) => c.started && c.id === call.id);
      if (live) {
        const more = rest(call.arguments, live.args);
        if (more) out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: more, ...tag });
        live.ended = true;
        out.push({ type: EventType.TOOL_CALL_END, toolCallId: call.id, ...tag });
        continue;
      }
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
    if (!open.reasoningOpen) return [];
    const messageId = `${open.messageId}:reasoning`;
    open.reasoningOpen = false;
    return [
      { type: EventType.REASONING_MESSAGE_END, messageId, ...tag },
      { type: EventType.REASONING_END, messageId, ...tag },
    ];
  }

  private closeMessages(open: OpenStep, tag: { subagentRunId?: string }): AgUiEvent[] {
    const out = this.closeReasoning(open, tag);
    if (open.textOpen) out.push({ type: EventType.TEXT_MESSAGE_END, messageId: open.messageId, ...tag });
    open.textOpen = false;
    return out;
  }

  closeStep(stepId: string): AgUiEvent[] {
    const open = this.steps.get(stepId);
    if (!open) return [];
    const tag = open.owner ? { subagentRunId: open.owner } : {};
    this.steps.delete(stepId);
    const calls = [...(open.calls?.values() ?? [])].filter((c) => c.started && !c.ended);
    return [
      ...this.closeMessages(open, tag),
      ...calls.map((c): AgUiEvent => ({ type: EventType.TOOL_CALL_END, toolCallId: c.id!, ...tag })),
      { type: EventType.STEP_FINISHED, stepName: open.stepName, ...tag },
    ];
  }

  closeOwnedBy(runId: string): AgUiEvent[] {
    return [...this.steps.entries()].filter(([, s]) => s.owner === runId).flatMap(([id]) => this.closeStep(id));
  }
}

/** What `whole` adds to `sent` (the whole text when what was sent is not its beginning: a retried step). */
function rest(whole: string, sent: string | undefined): string {
  return sent && whole.startsWith(sent) ? whole.slice(sent.length) : whole;
}
