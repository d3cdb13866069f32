// An agent run's tools: its worker tools resolved to the specs the workflow schedules them with (a name the worker
// does not know fails the run before its first model call), its agents offered as tools (those that pass their
// healthcheck), the built-in exit_loop, and the tools the run's client carries out itself (client tools).
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import {
  EXIT_LOOP_TOOL,
  ErrorType,
  splitTools,
  type AgentSpec,
  type AgentToolSpec,
  type ClientToolSpec,
  type ToolSpec,
} from '../../common';
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
  // A client tool waits for its result like a callback tool that starts nothing; the model call describes it itself.
  for (const tool of agent.clientTools ?? [])
    if (!specs.has(tool.name) && !agentTools.has(tool.name)) specs.set(tool.name, clientToolSpec(tool));
  const clientTools = (agent.clientTools ?? []).filter((t) => specs.get(t.name)?.callback?.client);
  const inlineTools = [
    ...[...agentTools.values()].map((t) => ({ name: t.name, description: t.description })),
    ...clientTools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters ?? {} })),
    ...(offersExitLoop
      ? [{ name: EXIT_LOOP_TOOL.name, description: EXIT_LOOP_TOOL.description, parameters: EXIT_LOOP_TOOL.parameters }]
      : []),
  ];
  return {
    specs,
    agentTools,
    offersExitLoop,
    inlineTools,
    names: [...new Set([...specs.keys(), ...inlineTools.map((t) => t.name)])],
  };
}

/** The spec a client tool is scheduled with: a callback wait that starts nothing (see CallbackWait.client). */
function clientToolSpec(tool: ClientToolSpec): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters ?? {},
    timeoutMs: tool.timeoutMs,
    maxAttempts: 1,
    idempotent: false,
    callback: { timeoutMs: tool.timeoutMs, client: true },
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
