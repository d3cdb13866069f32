// The callModel activity: one OpenAI-compatible streaming Chat Completion per agent step. Temporal owns
// retries (the client runs with maxRetries: 0); deltas go to a sink that publishes them to the run's stream.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { AGENT_TOOL_PARAMETERS, ErrorType, resolveLimits, type ChatMessage, type PriceTable } from '../../common';
import { conversationQuery } from '../../common/messages';
import { failedAttempt } from './outage';
import { classifyModelError } from './provider-errors';
import { ChatStreamAssembler, type ChunkDelta } from './completion-stream';
import { outputChecker, responseFormat, withSchemaInstruction } from './output-check';
import type { ToolRegistry } from '../tools/registry';
import type { CallModelInput, CallModelOutput } from '../../common/contracts/model-call';

/** Where the model lives; any OpenAI-compatible server works (OpenAI, vLLM, Ollama, llama.cpp, DeepSeek…). */
export interface ModelConfig {
  baseURL?: string;
  apiKey: string;
  /** Used when an agent names no model. */
  defaultModel: string;
  /**
   * Whether the provider takes `response_format: { type: 'json_schema' }` (default true). When false, an agent's
   * output schema is stated in the system prompt instead; either way the answer is checked and repaired.
   */
  responseFormat?: boolean;
  /** The provider's name in traces and metrics (gen_ai.provider.name); default: `openai`, or the endpoint's host. */
  provider?: string;
  /** Model prices (default: common/prices.ts's DEFAULT_PRICES); a model without one is priced `costUnknown`. */
  prices?: PriceTable;
  /**
   * What every tenant may spend per UTC day on priced model calls (AGIO_TENANT_DAILY_BUDGET_USD); a tenant's own, set
   * by an admin, wins.
   */
  tenantDailyBudgetUsd?: number;
}

/** Receives a step's live deltas (the Wire publisher plugs in here; the default drops them). */
export interface StepStreamSink {
  /** Called once before the first chunk; `attempt > 1` means earlier partial output must be discarded. */
  begin(info: { attempt: number }): Promise<void>;
  delta(delta: ChunkDelta): void;
  /** Flushes what is buffered; awaited before the activity returns. */
  end(): Promise<void>;
}

/** maxModelOutputBytes of runs whose calls name none. */
const DEFAULT_MAX_MODEL_OUTPUT_BYTES = resolveLimits().maxModelOutputBytes;
/** modelStreamIdleMs of runs whose calls name none. */
const DEFAULT_STREAM_IDLE_MS = resolveLimits().modelStreamIdleMs;

/** The longest gap between a model call's heartbeats (a cancellation rides on a heartbeat's answer). */
export const MAX_MODEL_HEARTBEAT_INTERVAL_MS = 4000;

/**
 * How often a model call heartbeats: its heartbeat timeout less 2 s, or half of it if that is more (a beat that is late
 * by a stalled event loop or a slow network does not time the call out), between one second and
 * {@link MAX_MODEL_HEARTBEAT_INTERVAL_MS}. With the default 9 s timeout that is a beat every 4 s (7 or 8 for a 30 s
 * call) instead of one a second; each beat is a server call, and a billed action on Temporal Cloud.
 */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number | undefined): number {
  if (!heartbeatTimeoutMs) return MAX_MODEL_HEARTBEAT_INTERVAL_MS;
  const interval = Math.max(heartbeatTimeoutMs / 2, heartbeatTimeoutMs - 2000);
  return Math.min(MAX_MODEL_HEARTBEAT_INTERVAL_MS, Math.max(1000, Math.floor(interval)));
}

/**
 * Heartbeats an activity from its first moment to its end, every {@link heartbeatIntervalMs}: callModel wrapped with
 * what runs before the model is called (reading a stored conversation, storing the handed steps), which a short
 * heartbeat timeout must cover as well.
 */
export function heartbeating<I, O>(activity: (input: I) => Promise<O>): (input: I) => Promise<O> {
  return async (input) => {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), heartbeatIntervalMs(ctx.info.heartbeatTimeoutMs));
    try {
      return await activity(input);
    } finally {
      clearInterval(beat);
    }
  };
}

/** Creates the sink of one model call. */
export type StepStreamSinkFactory = (input: CallModelInput) => StepStreamSink;

/** A sink that drops deltas (runs that do not stream, unit tests). */
export const noSink: StepStreamSink = {
  begin: async () => undefined,
  delta: () => undefined,
  end: async () => undefined,
};

/** Builds the callModel activity bound to a provider, the tool registry and a delta sink. */
export function createCallModel(config: ModelConfig, tools: ToolRegistry, sinkFactory: StepStreamSinkFactory) {
  const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, maxRetries: 0, timeout: 10 * 60_000 });

  return async function callModel(input: CallModelInput): Promise<CallModelOutput> {
    const ctx = Context.current();
    const startedAt = Date.now();
    const agentToolNames = new Set((input.agentTools ?? []).map((t) => t.name));
    const offered: ChatCompletionTool[] = [
      ...input.tools.filter((name) => !agentToolNames.has(name)).map((name) => tools.openAiTool(name)),
      ...(input.agentTools ?? []).map((t) => ({
        type: 'function' as const,
        function: {
          name: t.name,
          description: t.description,
          parameters: { ...(t.parameters ?? AGENT_TOOL_PARAMETERS) },
        },
      })),
    ];
    const settings = input.modelSettings ?? {};
    const messages = input.messages ?? (await readConversation(input));
    const format = input.outputFormat;
    const checkOutput = format && outputChecker(format);
    const sendsFormat = format && config.responseFormat !== false;
    const sink = sinkFactory(input);
    await sink.begin({ attempt: ctx.info.attempt });
    const assembler = new ChatStreamAssembler();
    let firstTokenMs: number | undefined;
    // The heartbeat (see heartbeating) proves the worker alive; a stream that stops moving is given up (and retried)
    // after streamIdleMs, rather than at the attempt's start-to-close timeout.
    const idleMs = input.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS;
    const stalled = new AbortController();
    let movedAt = Date.now();
    const watch = setInterval(() => {
      if (Date.now() - movedAt > idleMs) stalled.abort();
    }, 1000);
    const stallFailure = () =>
      ApplicationFailure.create({
        type: ErrorType.ModelConnectionError,
        message: `model stream made no progress for ${Math.round(idleMs / 1000)} s after ${assembler.chunks} chunks (modelStreamIdleMs); trying again`,
      });
    try {
      const stream = await client.chat.completions.create(
        {
          model: input.model ?? config.defaultModel,
          messages:
            format && !sendsFormat
              ? withSchemaInstruction(messages.map(toOpenAiMessage), format)
              : messages.map(toOpenAiMessage),
          stream: true,
          stream_options: { include_usage: true },
          ...(offered.length
            ? { tools: offered, tool_choice: settings.toolChoice, parallel_tool_calls: settings.parallelToolCalls }
            : {}),
          temperature: settings.temperature,
          top_p: settings.topP,
          max_tokens: settings.maxTokens,
          ...(sendsFormat ? { response_format: responseFormat(format) } : {}),
        },
        { signal: AbortSignal.any([ctx.cancellationSignal, stalled.signal]) },
      );
      const maxOutputBytes = input.maxOutputBytes ?? DEFAULT_MAX_MODEL_OUTPUT_BYTES;
      for await (const chunk of stream) {
        movedAt = Date.now();
        const delta = assembler.add(chunk);
        if (assembler.receivedBytes > maxOutputBytes) {
          stream.controller.abort();
          throw ApplicationFailure.create({
            type: ErrorType.ModelOutputTooLarge,
            nonRetryable: true,
            message: `the model's answer passed ${maxOutputBytes} bytes, the run's maxModelOutputBytes; it was cut off there and is not retried (ask for shorter answers; a raised limit must keep the run's steps well under Temporal's 2 MiB payload cap)`,
          });
        }
        if (delta) {
          firstTokenMs ??= Date.now() - startedAt;
          sink.delta(delta);
        }
      }
      // openai's stream ends quietly when its signal aborts: a cancelled call must not look like a cut stream.
      ctx.cancellationSignal.throwIfAborted();
      if (stalled.signal.aborted) throw stallFailure();
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? err;
      const failure = stalled.signal.aborted ? stallFailure() : classifyModelError(err, assembler.chunks);
      throw await failedAttempt(failure, ctx.info, input.stepId, input.eventBase);
    } finally {
      clearInterval(watch);
      await sink.end();
    }
    if (!assembler.finishReason) {
      const failure = ApplicationFailure.create({
        type: assembler.chunks === 0 ? ErrorType.ModelMalformedResponse : ErrorType.ModelConnectionError,
        message:
          assembler.chunks === 0
            ? 'model response held no completion chunks'
            : `model stream ended after ${assembler.chunks} chunks without a finish reason`,
      });
      throw await failedAttempt(failure, ctx.info, input.stepId, input.eventBase);
    }
    const toolCalls = assembler.toolCalls(input.stepId);
    const usage = assembler.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    return {
      finishReason: assembler.finishReason,
      usage,
      ...(checkOutput && !toolCalls.length ? { outputCheck: checkOutput(assembler.content) } : {}),
      step: {
        id: input.stepId,
        runId: input.runId,
        index: input.stepIndex,
        role: 'assistant',
        content: assembler.content || (toolCalls.length ? null : ''),
        ...(assembler.reasoningContent ? { reasoningContent: assembler.reasoningContent } : {}),
        ...(toolCalls.length ? { toolCalls } : {}),
        usage,
        metrics: { startedAt, durationMs: Date.now() - startedAt, firstTokenMs, attempt: ctx.info.attempt },
      },
    };
  };
}

/** The conversation a callModel input names, read from its workflow (which is waiting on this call, so it is
 * cached on a worker and answers at once). */
export async function readConversation(input: CallModelInput): Promise<ChatMessage[]> {
  if (!input.conversation)
    throw ApplicationFailure.create({
      type: ErrorType.ModelBadRequest,
      message: 'callModel input has neither messages nor a conversation to read',
      nonRetryable: true,
    });
  const { workflowId, runId, count } = input.conversation;
  const messages = await Context.current()
    .client.workflow.getHandle(workflowId, runId)
    .query(conversationQuery, { count });
  if (messages.length !== count)
    throw new Error(`conversation of ${workflowId} has ${messages.length} messages, expected ${count}`);
  return messages;
}

/** Agio's plain message → the OpenAI request shape. */
export function toOpenAiMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content ?? '' };
    case 'user':
      return { role: 'user', content: m.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content ?? '' };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls?.length
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      };
  }
}
