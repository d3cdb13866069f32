// MCP: the bridge's Streamable HTTP endpoint exposing agents as MCP tools with Tasks (issue 34). Filled in by the MCP work.
import type { Routes } from './context';

export const mcpRoutes: Routes = () => undefined;
