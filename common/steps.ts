// Steps: the messages of a run's conversation as Agio records them (carried over from the original Agio framework's
// Step model).
import { z } from 'zod';

/** Token usage of one call or a whole run, and what it cost where the model's price is known. */
export const Usage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  /** Prompt tokens the provider served from its cache (part of promptTokens). */
  cachedPromptTokens: z.number().int().nonnegative().optional(),
  /** Completion tokens spent reasoning (part of completionTokens). */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** What the calls with a known price cost, in US dollars (common/prices.ts). */
  costUsd: z.number().nonnegative().optional(),
  /** Some call's model had no price: costUsd (if any) counts only the others. */
  costUnknown: z.boolean().optional(),
});
/** Token usage of one call or a whole run. */
export type Usage = z.infer<typeof Usage>;

/** Usage with all counts at zero. */
export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Sums usages (an optional count or cost appears in the sum when either side has it). */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  const optional = (key: 'cachedPromptTokens' | 'reasoningTokens' | 'costUsd') =>
    a[key] === undefined && b[key] === undefined ? {} : { [key]: (a[key] ?? 0) + (b[key] ?? 0) };
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...optional('cachedPromptTokens'),
    ...optional('reasoningTokens'),
    ...optional('costUsd'),
    ...(a.costUnknown || b.costUnknown ? { costUnknown: true } : {}),
  };
}

/** A tool call the model asked for; `arguments` is the raw JSON text the model produced (may be malformed). */
export const ToolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
/** A tool call the model asked for. */
export type ToolCall = z.infer<typeof ToolCall>;

/** Timings of a step. */
export const StepMetrics = z.object({
  startedAt: z.number().optional(),
  durationMs: z.number().nonnegative().optional(),
  firstTokenMs: z.number().nonnegative().optional(),
  attempt: z.number().int().positive().optional(),
});
/** Timings of a step. */
export type StepMetrics = z.infer<typeof StepMetrics>;

/** One message of a run's conversation. */
export const Step = z.object({
  /** Stable id: `${runId}:${index}`, so stores can write a step idempotently. */
  id: z.string(),
  runId: z.string(),
  index: z.number().int().nonnegative(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().default(null),
  reasoningContent: z.string().optional(),
  toolCalls: z.array(ToolCall).optional(),
  /** For tool steps: the call this result answers. */
  toolCallId: z.string().optional(),
  /** For tool steps: the tool's name. */
  name: z.string().optional(),
  isError: z.boolean().optional(),
  metrics: StepMetrics.optional(),
  usage: Usage.optional(),
  /** Structured extras (e.g. sources used by a web tool, a reference to a stored full output). */
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/** One message of a run's conversation. */
export type Step = z.infer<typeof Step>;

/** A message as sent to the model (OpenAI Chat Completions shape, kept as plain JSON). */
export const ChatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  toolCalls: z.array(ToolCall).optional(),
  toolCallId: z.string().optional(),
  name: z.string().optional(),
});
/** A message as sent to the model. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The message a step contributes to the next model request. */
export function stepToMessage(step: Step): ChatMessage {
  return {
    role: step.role,
    content: step.content,
    ...(step.toolCalls?.length ? { toolCalls: step.toolCalls } : {}),
    ...(step.toolCallId ? { toolCallId: step.toolCallId } : {}),
    ...(step.name && step.role === 'tool' ? { name: step.name } : {}),
  };
}

/** Text pieces of a streamed step. */
export const StepDelta = z.object({
  content: z.string().optional(),
  reasoningContent: z.string().optional(),
  toolCalls: z
    .array(
      z.object({
        index: z.number().int(),
        id: z.string().optional(),
        name: z.string().optional(),
        arguments: z.string().optional(),
      }),
    )
    .optional(),
});
/** Text pieces of a streamed step. */
export type StepDelta = z.infer<typeof StepDelta>;
