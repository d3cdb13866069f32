// Agent and tool specs: plain JSON describing what runs. A run's input carries its full AgentSpec so the
// history records exactly what ran; tools are referenced by name and resolved in the worker.
import { z } from 'zod';
import { RunLimitOverrides } from './limits';
import { OutputSchema } from './output-schema';
import { PermissionRule } from './permissions';
import { CallbackWait } from './callbacks';

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

/** An agent's name where runs are filtered by it (lists, the approvals inbox, webhooks): as loose as a stored run's. */
export const AgentNameFilter = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'agent: 1-128 letters, digits, . _ -');

/**
 * A tool the run's client carries out itself (a frontend tool): offered to the model with its own description and JSON
 * Schema, and answered by the client (RunHandle.completeCallback) within `timeoutMs`. Set per run by a protocol
 * adapter.
 */
export const ClientToolSpec = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
  description: z.string().max(8192),
  parameters: z.record(z.string(), z.unknown()).optional(),
  timeoutMs: z.number().int().positive(),
});
/** A tool the run's client carries out itself. */
export type ClientToolSpec = z.infer<typeof ClientToolSpec>;

/** An LLM agent. */
export const AgentSpec = z.object({
  kind: z.literal('llm').default('llm'),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent names are 1-64 letters, digits, _ or -'),
  description: z.string().default(''),
  /** Model name as the provider knows it; the worker's default model when unset. */
  model: z.string().optional(),
  /** System prompt; `{key}` is filled from session state when the run starts. */
  instructions: z.string().default(''),
  /** Names of tools registered in the worker, and agents used as tools (see `asTool`). */
  get tools() {
    return z.array(z.union([z.string(), AgentToolSpec])).default([]);
  },
  /** Tools the run's client carries out itself (see ClientToolSpec); none by default. */
  clientTools: z.array(ClientToolSpec).max(64).optional(),
  maxSteps: z.number().int().positive().optional(),
  modelSettings: ModelSettings.default({}),
  /** Run the tool calls of one turn one after another instead of in parallel. */
  sequentialToolCalls: z.boolean().default(false),
  /** Limits for runs of this agent (overridable per run). */
  limits: RunLimitOverrides.optional(),
  /** In a workflow agent: store this agent's final output under this state key. */
  outputKey: z.string().optional(),
  /** Tool permission rules (allow / deny / ask); no matching rule means allow. */
  permissions: z.array(PermissionRule).default([]),
  /** How long an `ask` waits for a human decision before it counts as denied (default 24 h). */
  approvalTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(24 * 60 * 60_000),
  /**
   * The final answer must be JSON matching this schema (JSON Schema; `defineAgent` also takes a zod schema). It is
   * sent as `response_format` where the worker's provider supports it, checked, and repaired or failed (see
   * docs/STRUCTURED-OUTPUT.md).
   */
  outputSchema: OutputSchema.optional(),
  /** The schema's name in `response_format` (default: the agent's name). */
  outputSchemaName: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'schema names are 1-64 letters, digits, _ or -')
    .optional(),
  /**
   * Ask the provider for strict schema adherence (`json_schema.strict`; OpenAI then allows only a subset of JSON
   * Schema).
   */
  outputSchemaStrict: z.boolean().optional(),
  /**
   * Repair turns after an answer that does not match the schema, before the run fails (default 2, fixed when the run
   * starts).
   */
  maxOutputRepairs: z.number().int().nonnegative().max(10).optional(),
});
/** An LLM agent. */
export type AgentSpec = z.infer<typeof AgentSpec>;
/** What `defineAgent` accepts: an AgentSpec with defaults left out. */
export type AgentSpecInput = z.input<typeof AgentSpec>;

/**
 * An AgentSpec that remembers the type of its structured output (a compile-time brand only, never present at run
 * time), so a client can type a run's `output`.
 */
export type TypedAgentSpec<T> = AgentSpec & { readonly __outputType?: T };

/** Builds a validated AgentSpec (throws a zod error naming the bad field); a zod `outputSchema` types its output. */
export function defineAgent<T>(spec: AgentSpecInput & { outputSchema: z.ZodType<T> }): TypedAgentSpec<T>;
export function defineAgent(spec: AgentSpecInput): AgentSpec;
export function defineAgent(spec: AgentSpecInput): AgentSpec {
  return AgentSpec.parse(spec);
}

/** An agent offered to another agent as a tool; each call runs it as a child workflow. */
export const AgentToolSpec = z.object({
  kind: z.literal('agent_tool'),
  /** Tool name the model sees (default: the agent's name). */
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: z.string().min(1),
  get agent() {
    return AgentSpec;
  },
  /** `full`: every event of the child reaches the root stream; `none`: only its start, end and approval requests. */
  stream: z.enum(['full', 'none']).default('full'),
  /** Tools of the child agent it may use (default: all of its own). */
  toolsAllowlist: z.array(z.string()).optional(),
  /** Upper bound of one child run; a timeout folds into an `unavailable` tool result. */
  timeoutMs: z.number().int().positive().optional(),
  /** Checked when the worker starts: a failing sub-agent is not offered to the model. */
  healthcheck: z.boolean().default(false),
});
/** An agent offered to another agent as a tool. */
export type AgentToolSpec = z.infer<typeof AgentToolSpec>;

/** Options of {@link asTool}. */
export type AsToolOptions = Omit<z.input<typeof AgentToolSpec>, 'kind' | 'agent' | 'name'> & { name?: string };

/** Offers an agent to other agents as a tool that takes a task and returns the agent's final answer. */
export function asTool(agent: AgentSpecInput, opts: AsToolOptions): AgentToolSpec {
  return AgentToolSpec.parse({ ...opts, kind: 'agent_tool', name: opts.name ?? agent.name, agent });
}

/** The agent an agent tool runs: its toolkit cut down to the tool's allowlist (agent tools count by name too). */
export function childAgentSpec(tool: AgentToolSpec): AgentSpec {
  if (!tool.toolsAllowlist) return tool.agent;
  const allowed = new Set(tool.toolsAllowlist);
  return { ...tool.agent, tools: tool.agent.tools.filter((t) => allowed.has(typeof t === 'string' ? t : t.name)) };
}

/** Names of a spec's worker tools (strings) and its agent tools. */
export function splitTools(tools: AgentSpec['tools']): { names: string[]; agentTools: AgentToolSpec[] } {
  return {
    names: tools.filter((t): t is string => typeof t === 'string'),
    agentTools: tools.filter((t): t is AgentToolSpec => typeof t !== 'string'),
  };
}

/** The argument schema every agent tool offers the model. */
export const AGENT_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    task: {
      type: 'string',
      description: 'What the agent should do, stated completely: it does not see this conversation.',
    },
    context: { type: 'string', description: 'Facts from this conversation the agent needs.' },
    references: {
      type: 'array',
      items: { type: 'string' },
      description: 'File paths or URLs the agent should look at.',
    },
  },
  required: ['task'],
  additionalProperties: false,
} as const;

/** What the workflow knows about a tool: enough to schedule it; its code stays in the worker. */
export const ToolSpec = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema of the arguments (generated from the tool's zod schema). */
  parameters: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive(),
  /** Heartbeat timeout of one execution (absent: the timeout, at most 15 s). */
  heartbeatTimeoutMs: z.number().int().positive().optional(),
  maxAttempts: z.number().int().positive(),
  idempotent: z.boolean(),
  /** Short and idempotent: runs as a local activity, in the workflow task that asked for it (no server round trip). */
  quick: z.boolean().optional(),
  /**
   * A callback tool: the activity starts outside work, then the run waits this long for its result
   * (common/callbacks.ts).
   */
  callback: CallbackWait.optional(),
  /** A remote A2A agent: a call sends its message once, then follows the remote task (common/remote-agents.ts). */
  remoteAgent: z.literal(true).optional(),
});
/** What the workflow knows about a tool. */
export type ToolSpec = z.infer<typeof ToolSpec>;
