// An MCP server's tools as worker tools: named `<server>__<tool>`, described and typed by the server's own JSON
// Schema, idempotent when the server says so (or the config does), and run through the same runTool path as any tool.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext, ToolDefinition, ToolOutput } from '../define-tool';
import { jsonSchemaArguments } from './arguments';
import type { McpServerConfig } from './config';

/** Separates the server's name from its tool's name in a worker tool name. */
export const MCP_NAME_SEPARATOR = '__';
/** Prefix of the name that stands for all (allowlisted) tools of a server in an agent's `tools`. */
export const MCP_GROUP_PREFIX = 'mcp:';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `everything` + `get-sum` → `everything__get-sum`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_NAME_SEPARATOR}${tool}`;
}

/** `everything` → `mcp:everything`. */
export function mcpGroupName(server: string): string {
  return `${MCP_GROUP_PREFIX}${server}`;
}

/** Calls one tool of a server for a run (the server's connection pool does it). */
export type McpCall = (tool: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutput>;

/**
 * The tools of a server the worker offers: the allowlist (all when absent), each checked to exist and to map to a
 * valid tool name, in the server's order.
 */
export function selectTools(config: McpServerConfig, listed: Tool[]): Tool[] {
  const names = listed.map((t) => t.name);
  const missing = (config.tools ?? []).filter((t) => !names.includes(t));
  if (missing.length) {
    const list = missing.map((t) => `"${t}"`).join(', ');
    throw new Error(`MCP server "${config.name}" has no tool ${list} (its tools: ${names.join(', ') || 'none'})`);
  }
  const chosen = config.tools ? listed.filter((t) => config.tools!.includes(t.name)) : listed;
  for (const tool of chosen) {
    const name = mcpToolName(config.name, tool.name);
    if (!TOOL_NAME.test(name)) {
      throw new Error(
        `MCP server "${config.name}" has a tool "${tool.name}" that cannot be offered as "${name}": ` +
          'tool names are 1-64 letters, digits, _ or -; leave it out with an allowlist (`tools:`), or give the server a shorter name',
      );
    }
  }
  return chosen;
}

/** Whether calling the tool twice is harmless: the config says so, or else the server's annotations do. */
export function isIdempotent(config: McpServerConfig, tool: Tool): boolean {
  return config.idempotent ?? (tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true);
}

/** One MCP tool as a worker tool definition. */
export function mcpToolDefinition(config: McpServerConfig, tool: Tool, call: McpCall): ToolDefinition {
  const schema = tool.inputSchema as Record<string, unknown>;
  let parameters: ToolDefinition['parameters'];
  try {
    parameters = jsonSchemaArguments(schema);
  } catch (err) {
    const why = (err as Error).message;
    throw new Error(`MCP server "${config.name}": the input schema of its tool "${tool.name}" cannot be used: ${why}`);
  }
  return {
    name: mcpToolName(config.name, tool.name),
    description:
      tool.description ??
      tool.title ??
      tool.annotations?.title ??
      `Tool "${tool.name}" of the MCP server "${config.name}".`,
    parameters,
    jsonSchema: schema,
    execute: (args, ctx) => call(tool.name, args as Record<string, unknown>, ctx),
    idempotent: isIdempotent(config, tool),
    // A run's own server works in the run's workspace and may change it; a worker's shared server never sees it.
    workspace: config.lifetime === 'run' ? 'write' : 'none',
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.maxAttempts ? { maxAttempts: config.maxAttempts } : {}),
  };
}
