// Workflow agents (after Google ADK's LoopAgent and friends): agents that run sub-agents — LLM agents or other
// workflow agents — in a loop, in sequence or in parallel, sharing a key-value state.
import { z } from 'zod';
import { RunLimitOverrides } from './limits';
import { AgentSpec, type AgentSpecInput } from './specs';

/** A loop, sequence or parallel group of sub-agents. */
export interface WorkflowAgentSpec {
  kind: 'loop' | 'sequential' | 'parallel';
  name: string;
  description: string;
  /** LLM agents or workflow agents, run as child workflows. */
  subAgents: AnyAgentSpec[];
  /** Loops only: iterations before stopping; 0 or unset runs until a sub-agent escalates. */
  maxIterations?: number;
  /** Loops only: continue as new every N iterations (besides Temporal's own suggestion). */
  continueAsNewEvery?: number;
  /** Stores this agent's final output under this state key in the enclosing workflow agent. */
  outputKey?: string;
  limits?: RunLimitOverrides;
}

/** Any agent: an LLM agent or a workflow agent. */
export type AnyAgentSpec = AgentSpec | WorkflowAgentSpec;

/** Schema of {@link WorkflowAgentSpec} (recursive through `subAgents`). */
export const WorkflowAgentSpec: z.ZodType<WorkflowAgentSpec, unknown> = z.object({
  kind: z.enum(['loop', 'sequential', 'parallel']),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent names are 1-64 letters, digits, _ or -'),
  description: z.string().default(''),
  subAgents: z.lazy(() => z.array(AnyAgentSpec).min(1, 'a workflow agent needs at least one sub-agent')),
  maxIterations: z.number().int().nonnegative().optional(),
  continueAsNewEvery: z.number().int().positive().optional(),
  outputKey: z.string().optional(),
  limits: RunLimitOverrides.optional(),
});

/** Schema of {@link AnyAgentSpec}: workflow agents by their kind, anything else as an LLM agent. */
export const AnyAgentSpec: z.ZodType<AnyAgentSpec, unknown> = z.lazy(() => z.union([WorkflowAgentSpec, AgentSpec]));

/** What the workflow-agent builders accept. */
export type WorkflowAgentOptions = Omit<WorkflowAgentSpec, 'kind' | 'subAgents' | 'description'> & {
  description?: string;
  subAgents: (AgentSpecInput | WorkflowAgentSpec)[];
};

/** True for loop, sequential and parallel agents. */
export function isWorkflowAgent(spec: AnyAgentSpec): spec is WorkflowAgentSpec {
  return spec.kind === 'loop' || spec.kind === 'sequential' || spec.kind === 'parallel';
}

/** A loop over sub-agents (stops at maxIterations or when a sub-agent escalates). */
export function loopAgent(spec: WorkflowAgentOptions): WorkflowAgentSpec {
  return WorkflowAgentSpec.parse({ ...spec, kind: 'loop' });
}

/** Sub-agents once, in order. */
export function sequentialAgent(spec: WorkflowAgentOptions): WorkflowAgentSpec {
  return WorkflowAgentSpec.parse({ ...spec, kind: 'sequential' });
}

/** Sub-agents at once, each on its own branch of the state; results gathered in order. */
export function parallelAgent(spec: WorkflowAgentOptions): WorkflowAgentSpec {
  return WorkflowAgentSpec.parse({ ...spec, kind: 'parallel' });
}

/** Where a loop starts: after `timesLooped` iterations, at sub-agent index `currentSubAgent`. */
export const LoopPosition = z.object({
  timesLooped: z.number().int().nonnegative(),
  currentSubAgent: z.number().int().nonnegative(),
});
/** Where a loop starts. */
export type LoopPosition = z.infer<typeof LoopPosition>;

/** A request to end enclosing workflow agents: the nearest loop, or every one up to the root. */
export const Escalation = z.object({
  agent: z.string(),
  reason: z.string().optional(),
  toRoot: z.boolean().default(false),
});
/** A request to end enclosing workflow agents. */
export type Escalation = z.infer<typeof Escalation>;

/** The built-in tool a sub-agent calls to end its loop. */
export const EXIT_LOOP_TOOL = {
  name: 'exit_loop',
  description:
    'End the enclosing loop after this step (call it when the work is done). Set toRoot to end every enclosing workflow agent.',
  parameters: {
    type: 'object',
    properties: {
      reason: { type: 'string', description: 'Why the loop should end.' },
      toRoot: { type: 'boolean', description: 'End every enclosing workflow agent, not just the nearest loop.' },
    },
    additionalProperties: false,
  },
} as const;
