// The example agents the embedded server starts with when no agents file is given: agents/examples.yaml, the same
// kind of file a user writes (`agio serve --agents FILE`); and a file's agents with the user's own tools, checked.
import { defineRemoteAgentTool } from '../activities/a2a/remote-agent-tool';
import path from 'node:path';
import type { ToolDefinition } from '../activities/tools/define-tool';
import { builtinTools } from '../activities/tools/builtin';
import { bashNetworkTool } from '../activities/tools/bash';
import { loadAgentsFile, type LoadedAgents } from './agents-file';
import { httpCallbackTool } from '../activities/callbacks/http-callback-tool';
import { checkAgentsFileTools } from './agents-file-tools';
import { loadToolModules } from './tool-modules';
import { projectRoot } from '../platform/project-root';

/** The example agents file shipped with Agio. */
export const EXAMPLE_AGENTS_FILE = path.join(projectRoot(), 'agents', 'examples.yaml');

/**
 * The agents a worker, bridge or `agio serve` serves: the given file's (AGIO_AGENTS, `--agents`), else the examples
 * (assistant, coder, researcher, lead). Read when asked for, so a process given its own file never reads the examples.
 */
export function agentsToServe(file?: string): LoadedAgents {
  return loadAgentsFile(file ?? EXAMPLE_AGENTS_FILE);
}

/** An agents file's agents with the tools of one's own they use. */
export interface AgentsWithTools extends LoadedAgents {
  /** The tools of `--tools` modules and of the file's `tools:` modules, for createWorker's `tools`. */
  tools: ToolDefinition[];
}

/**
 * {@link agentsToServe}, plus the tools of `toolFiles` and of the file's `tools:` modules, and every tool an agent
 * names checked against what createWorker will offer (built-in tools, those tools, the file's MCP servers): a
 * misspelled tool stops here with the file and line, before a server starts.
 */
export async function agentsWithToolsToServe(
  file?: string,
  toolFiles: string[] = [],
  opts: { networkTool?: boolean } = {},
): Promise<AgentsWithTools> {
  const loaded = agentsToServe(file);
  const tools = [
    ...(await loadToolModules([...toolFiles.map((f) => path.resolve(f)), ...loaded.toolModules])),
    // The file's callback tools: its HTTP start requests (activities/callbacks/http-callback-tool.ts).
    ...loaded.callbackTools.map(httpCallbackTool),
    // The file's remote A2A agents (activities/a2a/remote-agent-tool.ts).
    ...loaded.remoteAgents.map(defineRemoteAgentTool),
  ];
  const networkTool = opts.networkTool ?? process.env.AGIO_SANDBOX_NETWORK_TOOL === '1';
  const offered = [...builtinTools, ...(networkTool ? [bashNetworkTool] : []), ...tools].map((t) => t.name);
  // get_tool_result: every worker has it (createWorker), beside the stores it reads.
  checkAgentsFileTools(loaded, [...new Set([...offered, 'get_tool_result'])]);
  return { ...loaded, tools };
}
