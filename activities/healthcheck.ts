// Healthchecks of agents offered as tools (after AgentScope's SubAgent): a sub-agent whose tools the worker lacks, or
// whose model the provider does not serve, is not offered to the model. Results are cached per worker process.
import OpenAI from 'openai';
import { isWorkflowAgent, splitTools, type AgentSpec, type AnyAgentSpec } from '../common';
import type { ModelConfig } from './model/call-model';
import type { ToolRegistry } from './tools/registry';

/** Checks sub-agents once each and remembers the answer. */
export class AgentHealth {
  private readonly results = new Map<string, Promise<string | undefined>>();
  private models: Promise<Set<string>> | undefined;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly model: ModelConfig,
    private readonly warn: (message: string) => void = (m) => console.warn(m),
  ) {}

  /** Why the agent is unhealthy, or undefined when it is fine. */
  check(agent: AgentSpec): Promise<string | undefined> {
    const key = JSON.stringify([
      agent.name,
      agent.model ?? this.model.defaultModel,
      agent.tools.map((t) => (typeof t === 'string' ? t : t.name)),
    ]);
    let result = this.results.get(key);
    if (!result) {
      result = this.run(agent).then((reason) => {
        if (reason)
          this.warn(
            `agio: sub-agent "${agent.name}" failed its healthcheck and will not be offered as a tool: ${reason}`,
          );
        return reason;
      });
      this.results.set(key, result);
    }
    return result;
  }

  private async run(agent: AgentSpec): Promise<string | undefined> {
    const missing = splitTools(agent.tools).names.filter((n) => !this.tools.find(n) && !this.tools.expand(n));
    if (missing.length) return `the worker has no tool ${missing.map((n) => `"${n}"`).join(', ')}`;
    const model = agent.model ?? this.model.defaultModel;
    try {
      this.models ??= this.listModels();
      const served = await this.models;
      return served.has(model) ? undefined : `the model endpoint does not serve "${model}"`;
    } catch (err) {
      this.models = undefined;
      return `the model endpoint did not answer: ${(err as Error).message}`;
    }
  }

  private async listModels(): Promise<Set<string>> {
    const client = new OpenAI({
      baseURL: this.model.baseURL,
      apiKey: this.model.apiKey,
      maxRetries: 1,
      timeout: 10_000,
    });
    const ids = new Set<string>();
    for await (const m of client.models.list()) ids.add(m.id);
    return ids;
  }
}

/** Every sub-agent with `healthcheck: true` reachable from the given agents (for checks at worker start). */
export function healthcheckedSubAgents(agents: AnyAgentSpec[]): AgentSpec[] {
  const found: AgentSpec[] = [];
  const visit = (spec: AnyAgentSpec): void => {
    if (isWorkflowAgent(spec)) return spec.subAgents.forEach(visit);
    for (const tool of splitTools(spec.tools).agentTools) {
      if (tool.healthcheck) found.push(tool.agent);
      visit(tool.agent);
    }
  };
  agents.forEach(visit);
  return found;
}
