// `agio mcp`: Agio's agents as MCP tools over stdio (issue 34). Filled in by the MCP work.

export const MCP_USAGE = '';

export function mcpCommand(_args: string[]): Promise<number> {
  return Promise.reject(new Error('agio mcp is not built yet'));
}
