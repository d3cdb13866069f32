// Tools by name in the worker: their zod schemas become JSON Schema for the model and ToolSpecs for workflows. A group
// name (an MCP server's `mcp:<server>`) stands for several tools in an agent's list.
import { z } from 'zod';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import {
  EXIT_LOOP_TOOL,
  childAgentSpec,
  isWorkflowAgent,
  splitTools,
  type AnyAgentSpec,
  type ToolSpec,
} from '../../common';
import type { ToolDefinition } from './define-tool';

/** Default start-to-close timeout of one tool execution. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** Default and upper bound of a quick tool's timeout: a local activity holds its workflow task while it runs. */
export const QUICK_TOOL_TIMEOUT_MS = { default: 10_000, max: 30_000 };

/** The worker's tools, looked up by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly schemas = new Map<string, Record<string, unknown>>();
  private readonly groups = new Map<string, string[]>();

  constructor(tools: ToolDefinition[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; names are unique and must be valid OpenAI function names. */
  register(tool: ToolDefinition): this {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name))
      throw new Error(`invalid tool name "${tool.name}": use 1-64 letters, digits, _ or -`);
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is already registered`);
    if (tool.quick && tool.idempotent !== true)
      throw new Error(
        `tool "${tool.name}" is quick but not idempotent: a quick tool runs again from the start after a worker crash, so declare idempotent: true or drop quick`,
      );
    if (tool.quick && (tool.timeoutMs ?? 0) > QUICK_TOOL_TIMEOUT_MS.max)
      throw new Error(
        `tool "${tool.name}" is quick but its timeout is ${tool.timeoutMs} ms: a quick tool may take at most ${QUICK_TOOL_TIMEOUT_MS.max} ms (drop quick for longer tools)`,
      );
    this.tools.set(tool.name, tool as ToolDefinition);
    this.schemas.set(
      tool.name,
      tool.jsonSchema ??
        (z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
    );
    return this;
  }

  /** Lets `name` stand for several registered tools in an agent's `tools` (an MCP server's `mcp:<server>`). */
  registerGroup(name: string, tools: string[]): this {
    if (this.tools.has(name) || this.groups.has(name)) throw new Error(`"${name}" is already registered`);
    const missing = tools.filter((t) => !this.tools.has(t));
    if (missing.length) throw new Error(`group "${name}" names unregistered tools: ${missing.join(', ')}`);
    this.groups.set(name, [...tools]);
    return this;
  }

  /** The tools a name in an agent's list stands for: itself, a group's members, or undefined when unknown. */
  expand(name: string): string[] | undefined {
    if (this.tools.has(name)) return [name];
    return this.groups.get(name);
  }

  /** The names in an agent's list that stand for nothing here (neither a tool nor a group). */
  unknown(names: string[]): string[] {
    return names.filter((n) => !this.expand(n));
  }

  /** What an agent that names unknown tools is told: which names, and what the worker has instead. */
  unknownToolsMessage(agent: string | undefined, unknown: string[]): string {
    const groups = [...this.groups.keys()];
    const has = `this worker has ${this.names().join(', ') || 'no tools'}${groups.length ? ` and the groups ${groups.join(', ')}` : ''}`;
    return `${agent ? `agent "${agent}"` : 'the agent'} names ${unknown.length > 1 ? 'tools' : 'a tool'} the worker does not have: ${unknown.map((n) => `"${n}"`).join(', ')}; ${has}`;
  }

  /**
   * Throws when an agent (or an agent it calls as a tool, or a sub-agent of a workflow agent) names a tool this
   * registry does not have, so a misspelled tool fails where agents are registered instead of vanishing from the
   * agent. Agents offered as tools with `healthcheck: true` are left to their healthcheck, which does not offer them.
   */
  checkAgents(agents: AnyAgentSpec[]): void {
    const problems: string[] = [];
    const visit = (spec: AnyAgentSpec): void => {
      if (isWorkflowAgent(spec)) return spec.subAgents.forEach(visit);
      const { names, agentTools } = splitTools(spec.tools);
      const unknown = this.unknown(names.filter((n) => n !== EXIT_LOOP_TOOL.name));
      if (unknown.length) problems.push(this.unknownToolsMessage(spec.name, unknown));
      for (const tool of agentTools) if (!tool.healthcheck) visit(childAgentSpec(tool));
    };
    agents.forEach(visit);
    if (problems.length) throw new Error([...new Set(problems)].join('\n'));
  }

  /** The tool with this name, or undefined. */
  find(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Registered names. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The plain spec a workflow needs to schedule the tool. */
  spec(name: string): ToolSpec {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`unknown tool "${name}"`);
    const idempotent = tool.idempotent ?? false;
    return {
      name,
      description: tool.description,
      parameters: this.schemas.get(name)!,
      timeoutMs: tool.timeoutMs ?? (tool.quick ? QUICK_TOOL_TIMEOUT_MS.default : DEFAULT_TOOL_TIMEOUT_MS),
      ...(tool.heartbeatTimeoutMs ? { heartbeatTimeoutMs: tool.heartbeatTimeoutMs } : {}),
      maxAttempts: tool.maxAttempts ?? (idempotent ? 3 : 1),
      idempotent,
      ...(tool.quick ? { quick: true } : {}),
      ...(tool.callback ? { callback: { timeoutMs: tool.callback.timeoutMs } } : {}),
      ...(tool.remoteAgent ? { remoteAgent: true as const } : {}),
    };
  }

  /** The tool as offered to an OpenAI-compatible model. */
  openAiTool(name: string): ChatCompletionTool {
    const spec = this.spec(name);
    return { type: 'function', function: { name, description: spec.description, parameters: spec.parameters } };
  }
}
