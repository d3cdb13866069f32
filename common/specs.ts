// Agent and tool specs: plain JSON describing what runs. A run's input carries its full AgentSpec so the
// history records exactly what ran; tools are referenced by name and resolved in the worker.
import { z } from 'zod';
import { RunLimitOverrides } from './limits';

/** Sampling settings passed to the model. */
export const ModelSettings = z.object({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** Let the model ask for several tools in one turn (provider default when unset). */
  parallelToolCalls: z.boolean().optional(),
  /** `auto` (default), `required` or `none`. */
  toolChoice: z.enum(['auto', 'required', 'none']).optional(),
});
/** Sampling settings passed to the model. */
export type ModelSettings = z.infer<typeof ModelSettings>;

/** An LLM agent. */
export const AgentSpec = z.object({
  kind: z.literal('llm').default('llm'),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent names are 1-64 letters, digits, _ or -'),
  description: z.string().default(''),
  /** Model name as the provider knows it; the worker's default model when unset. */
  model: z.string().optional(),
  /** System prompt; `{key}` is filled from session state when the run starts. */
  instructions: z.string().default(''),
  /** Names of tools registered in the worker. */
  tools: z.array(z.string()).default([]),
  maxSteps: z.number().int().positive().optional(),
  modelSettings: ModelSettings.default({}),
  /** Run the tool calls of one turn one after another instead of in parallel. */
  sequentialToolCalls: z.boolean().default(false),
  /** Limits for runs of this agent (overridable per run). */
  limits: RunLimitOverrides.optional(),
});
/** An LLM agent. */
export type AgentSpec = z.infer<typeof AgentSpec>;
/** What `defineAgent` accepts: an AgentSpec with defaults left out. */
export type AgentSpecInput = z.input<typeof AgentSpec>;

/** Builds a validated AgentSpec (throws a zod error naming the bad field). */
export function defineAgent(spec: AgentSpecInput): AgentSpec {
  return AgentSpec.parse(spec);
}

/** What the workflow knows about a tool: enough to schedule it; its code stays in the worker. */
export const ToolSpec = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema of the arguments (generated from the tool's zod schema). */
  parameters: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive(),
  maxAttempts: z.number().int().positive(),
  idempotent: z.boolean(),
});
/** What the workflow knows about a tool. */
export type ToolSpec = z.infer<typeof ToolSpec>;
