// An agent run's tools: its worker tools resolved to the specs the workflow schedules them with (a name the worker
// does not know fails the run before its first model call), its agents offered as tools (those that pass their
// healthcheck), and the built-in exit_loop.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { EXIT_LOOP_TOOL, ErrorType, splitTools, type AgentSpec, type AgentToolSpec, type ToolSpec } from '../common';
import { resolveToolsWith } from './model-step';

/** What an agent run may call. */
export interface Toolkit {
  /** Worker tools by name. */
  specs: Map<string, ToolSpec>;
  /** Agents offered as tools, by tool name. */
  agentTools: Map<string, AgentToolSpec>;
  /** Whether the agent may end its enclosing loop with exit_loop. */
  offersExitLoop: boolean;
  /** Tools the model call describes itself (the worker has no spec of theirs): agent tools and exit_loop. */
  inlineTools: { name: string; description: string; parameters?: Record<string, unknown> }[];
  /** Every name offered to the model. */
  names: string[];
}

/** Resolves the agent's tools (`local`: with a local activity, see LEAN_STEPS_PATCH). */
export async function resolveToolkit(agent: AgentSpec, local: boolean): Promise<Toolkit> {
  const specs = new Map<string, ToolSpec>();
  const agentTools = new Map<string, AgentToolSpec>();
  const declared = splitTools(agent.tools);
  const offersExitLoop = declared.names.includes(EXIT_LOOP_TOOL.name);
  const names = declared.names.filter((n) => n !== EXIT_LOOP_TOOL.name);
  if (agent.tools.length) {
    const healthchecks = declared.agentTools.filter((t) => t.healthcheck).map((t) => t.agent);
    const resolved = await resolveToolsWith(local)({ agent: agent.name, names, healthchecks }).catch(
      unknownToolFailure,
    );
    for (const spec of resolved.specs) specs.set(spec.name, spec);
    for (const tool of declared.agentTools)
      if (!resolved.unhealthyAgents.includes(tool.agent.name)) agentTools.set(tool.name, tool);
  }
  const inlineTools = [
    ...[...agentTools.values()].map((t) => ({ name: t.name, description: t.description })),
    ...(offersExitLoop
      ? [{ name: EXIT_LOOP_TOOL.name, description: EXIT_LOOP_TOOL.description, parameters: EXIT_LOOP_TOOL.parameters }]
      : []),
  ];
  return {
    specs,
    agentTools,
    offersExitLoop,
    inlineTools,
    names: [...specs.keys(), ...inlineTools.map((t) => t.name)],
  };
}

/** An unknown tool fails the run with the worker's own words (which tools, which it has), not as a failed activity. */
function unknownToolFailure(err: unknown): never {
  if (
    err instanceof ActivityFailure &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === ErrorType.UnknownTool
  )
    throw err.cause;
  throw err;
}
