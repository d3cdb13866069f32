// Agents by name: the worker and the client share one registry so the HTTP API can start agents by name.
import type { AnyAgentSpec } from './workflow-agents';

/** A name → agent spec map (LLM and workflow agents) with a clear error for unknown names. */
export class AgentRegistry {
  private readonly agents = new Map<string, AnyAgentSpec>();

  constructor(agents: AnyAgentSpec[] = []) {
    for (const agent of agents) this.register(agent);
  }

  /** Adds an agent; a second agent with the same name is an error. */
  register(agent: AnyAgentSpec): this {
    if (this.agents.has(agent.name)) throw new Error(`agent "${agent.name}" is already registered`);
    this.agents.set(agent.name, agent);
    return this;
  }

  /** The agent with this name, or undefined. */
  find(name: string): AnyAgentSpec | undefined {
    return this.agents.get(name);
  }

  /** The agent with this name; throws naming the known agents when there is none. */
  get(name: string): AnyAgentSpec {
    const agent = this.agents.get(name);
    if (!agent)
      throw new Error(`unknown agent "${name}"; registered agents: ${[...this.agents.keys()].join(', ') || 'none'}`);
    return agent;
  }

  /** All registered agents. */
  list(): AnyAgentSpec[] {
    return [...this.agents.values()];
  }
}
