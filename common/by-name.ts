// Starting an agent by name: the agentByName workflow's input and the resolveAgent activity's input and output. The
// worker resolves the name from its own agents, so a client needs no spec and changing an agent is a worker deploy.
import { z } from 'zod';
import { LoopPosition, type AnyAgentSpec } from './workflow-agents';
import type { LimitAboveAgent } from './limit-bounds';
import type { RunLimitOverrides, RunLimits } from './limits';
import { RunContextInput } from './run';
import { ModelSettings } from './specs';
import { ChatMessage } from './steps';

/** Input of the agentByName workflow: what a start carries, with the agent's name instead of its spec. */
export const AgentByNameInput = z.object({
  /** The agent, by the name the worker knows it under (its agents file or code-defined agents). */
  agentName: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent names are 1-64 letters, digits, _ or -'),
  input: z.union([z.string(), z.array(ChatMessage)]),
  /** The run's context; `limits` are the caller's overrides, resolved over the agent's own by the worker. */
  context: RunContextInput.optional(),
  state: z.record(z.string(), z.unknown()).optional(),
  /** Loops only: start at this position. */
  resumeFrom: LoopPosition.optional(),
  /** Merged over the agent's model settings (a workflow agent: every LLM sub-agent's). */
  modelSettings: ModelSettings.optional(),
  /**
   * The run's limits and `modelSettings.maxTokens` may only tighten the agent's own (a bridge's caller that may not
   * raise them): the worker refuses more with LimitAboveAgent.
   */
  tightenOnly: z.boolean().optional(),
});
/** Input of the agentByName workflow. */
export type AgentByNameInput = z.input<typeof AgentByNameInput>;

/** Input of the resolveAgent activity. */
export interface ResolveAgentInput {
  name: string;
  tenant: string;
  /** The run's model settings, merged into the spec the run records. */
  modelSettings?: ModelSettings;
  /** The caller's limit overrides, resolved over the agent's own. */
  limits?: RunLimitOverrides;
  /** Refuse limits or maxTokens above the agent's own (see {@link AgentByNameInput}). */
  tightenOnly?: boolean;
}

/** What resolveAgent answers (recorded in the run's history): the spec and limits the run starts with, or nothing. */
export type ResolveAgentOutput =
  { found: true; agent: AnyAgentSpec; limits: RunLimits; refused?: LimitAboveAgent } | { found: false };
