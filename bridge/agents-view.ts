// What GET /agents shows of each agent the bridge can start: enough to see what an agents file loaded (models,
// tools, agents used as tools with theirs, sub-agents, permissions, limits, output schema), nothing a worker holds.
import path from 'node:path';
import type { AgentSpec, AnyAgentSpec } from '../common';

/** The agents file as GET /agents names it: its file name, never the path on the bridge's machine. */
export function agentsSourceView(file: string): string {
  return path.basename(file);
}

/** One agent as GET /agents lists it; agents used as tools and sub-agents are shown whole, to any depth. */
export function agentView(agent: AnyAgentSpec): Record<string, unknown> {
  const common = {
    name: agent.name,
    kind: agent.kind,
    description: agent.description,
    ...(agent.outputKey ? { outputKey: agent.outputKey } : {}),
    ...(agent.limits ? { limits: agent.limits } : {}),
  };
  if (agent.kind !== 'llm') {
    return {
      ...common,
      subAgents: agent.subAgents.map(agentView),
      ...(agent.maxIterations !== undefined ? { maxIterations: agent.maxIterations } : {}),
    };
  }
  const llm: AgentSpec = agent;
  return {
    ...common,
    ...(llm.model ? { model: llm.model } : {}),
    ...(Object.keys(llm.modelSettings).length ? { modelSettings: llm.modelSettings } : {}),
    tools: llm.tools.map((t) =>
      typeof t === 'string'
        ? t
        : { name: t.name, description: t.description, stream: t.stream, agent: agentView(t.agent) },
    ),
    ...(llm.permissions.length ? { permissions: llm.permissions } : {}),
    ...(llm.maxSteps !== undefined ? { maxSteps: llm.maxSteps } : {}),
    ...(llm.outputSchema ? { outputSchema: llm.outputSchema } : {}),
  };
}
