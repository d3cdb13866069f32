// Agents by name: the worker and the client share one registry so the HTTP API can start agents by name.
import { AgentSpec } from './specs';

/** A name → AgentSpec map with a clear error for unknown names. */
export class AgentRegistry {
  private readonly agents = new Map<string, AgentSpec>();

  constructor(agents: AgentSpec[] = []) {
    for (const agent of agents) this.register(agent);
  }

  /** Adds an agent; a second agent with the same name is an error. */
  register(agent: AgentSpec): this {
    if (this.agents.has(agent.name)) throw new Error(`agent "${agent.name}" is already registered`);
    this.agents.set(agent.name, agent);
    return this;
  }

  /** The agent with this name, or undefined. */
  find(name: string): AgentSpec | undefined {
    return this.agents.get(name);
  }

  /** The agent with this name; throws naming the known agents when there is none. */
  get(name: string): AgentSpec {
    const agent = this.agents.get(name);
    if (!agent) throw new Error(`unknown agent "${name}"; registered agents: ${[...this.agents.keys()].join(', ') || 'none'}`);
    return agent;
  }

  /** All registered agents. */
  list(): AgentSpec[] {
    return [...this.agents.values()];
  }
}
