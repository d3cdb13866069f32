// Assembles a streamed Chat Completion (content, reasoning_content, tool-call deltas by index, usage)
// into one assistant message. Pure: unit-tested without a server.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ToolCall, Usage } from '../../common';

/** The text pieces one chunk added, for publishing deltas to clients. */
export interface ChunkDelta {
  content?: string;
  reasoningContent?: string;
  toolCalls?: { index: number; id?: string; name?: string; arguments?: string }[];
}

/** Accumulates chunks of one streamed completion. */
export class ChatStreamAssembler {
  content = '';
  reasoningContent = '';
  finishReason: string | null = null;
  usage: Usage | undefined;
  chunks = 0;
  /** UTF-8 bytes of text, reasoning and tool calls received so far. */
  receivedBytes = 0;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

  /** Adds one chunk; returns what it contributed (undefined when nothing visible). */
  add(chunk: ChatCompletionChunk): ChunkDelta | undefined {
    this.chunks++;
    if (chunk.usage) {
      this.usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0,
        totalTokens:
          chunk.usage.total_tokens ?? (chunk.usage.prompt_tokens ?? 0) + (chunk.usage.completion_tokens ?? 0),
      };
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
      const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens;
      if (cached) this.usage.cachedPromptTokens = cached;
      if (reasoning) this.usage.reasoningTokens = reasoning;
    }
    const choice = chunk.choices?.[0];
    if (!choice) return undefined;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta as
      (typeof choice.delta & { reasoning_content?: string | null; reasoning?: string | null }) | undefined;
    if (!delta) return undefined;
    const out: ChunkDelta = {};
    this.receivedBytes +=
      Buffer.byteLength(delta.content ?? '') + Buffer.byteLength(delta.reasoning_content ?? delta.reasoning ?? '');
    for (const tc of delta.tool_calls ?? [])
      this.receivedBytes +=
        Buffer.byteLength(tc.function?.arguments ?? '') + Buffer.byteLength(tc.function?.name ?? '');
    if (delta.content) {
      this.content += delta.content;
      out.content = delta.content;
    }
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) {
      this.reasoningContent += reasoning;
      out.reasoningContent = reasoning;
    }
    for (const tc of delta.tool_calls ?? []) {
      const call = this.calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      this.calls.set(tc.index, call);
      (out.toolCalls ??= []).push({
        index: tc.index,
        id: tc.id,
        name: tc.function?.name,
        arguments: tc.function?.arguments,
      });
    }
    return out.content || out.reasoningContent || out.toolCalls ? out : undefined;
  }

  /** Tool calls in index order; calls without an id get a stable one derived from the step. */
  toolCalls(stepId: string): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `${stepId}:call${index}`, name: c.name, arguments: c.arguments }));
  }
}
