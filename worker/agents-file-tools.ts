// The tools an agents file's agents name, with where in the file, and the check that a worker will have them all: run
// before anything starts (the Temporal server, MCP servers), so a misspelled tool is reported with the file and line
// like the file's other mistakes.
import { EXIT_LOOP_TOOL } from '../common';
import type { AgentEntry, LoadedAgents } from './agents-file';
import { AgentsFileError } from './agents-file';

/** One tool name an agent of the file lists, and where. */
export interface ToolRef {
  name: string;
  agent: string;
  /** `line 7: agents[1].tools[0]`. */
  where: string;
}

/** Every tool name in the agents' `tools` lists, inline agents included (agents named by reference are listed where defined). */
export function collectToolRefs(entries: AgentEntry[], where: (at: (string | number)[]) => string): ToolRef[] {
  const refs: ToolRef[] = [];
  const visit = (entry: AgentEntry, at: (string | number)[]): void => {
    if (entry.kind !== 'llm')
      return entry.subAgents.forEach((sub, s) => {
        if (typeof sub !== 'string') visit(sub, [...at, 'subAgents', s]);
      });
    entry.tools.forEach((tool, t) => {
      if (typeof tool === 'string') refs.push({ name: tool, agent: entry.name, where: where([...at, 'tools', t]) });
      else if (typeof tool.agent !== 'string') visit(tool.agent, [...at, 'tools', t, 'agent']);
    });
  };
  entries.forEach((entry, i) => visit(entry, ['agents', i]));
  return refs;
}

/**
 * Throws {@link AgentsFileError} naming each tool an agent of the file lists that the worker will not have: neither one
 * of `workerTools` (built-in, the user's own) nor of the file's MCP servers (`<server>__<tool>`, `mcp:<server>`; a
 * server's tools are known only once it runs, so any name under a server without a `tools` list passes here).
 */
export function checkAgentsFileTools(
  loaded: Pick<LoadedAgents, 'file' | 'mcpServers' | 'toolRefs'>,
  workerTools: string[],
): void {
  const names = new Set([...workerTools, EXIT_LOOP_TOOL.name]);
  const servers = new Map(loaded.mcpServers.map((s) => [s.name, s.tools]));
  const has = (name: string): boolean => {
    if (names.has(name)) return true;
    if (name.startsWith('mcp:')) return servers.has(name.slice(4));
    const split = name.indexOf('__');
    if (split < 0 || !servers.has(name.slice(0, split))) return false;
    const listed = servers.get(name.slice(0, split));
    return !listed || listed.includes(name.slice(split + 2));
  };
  const unknown = loaded.toolRefs.filter((ref) => !has(ref.name));
  if (!unknown.length) return;
  const offered = [...workerTools, ...[...servers.keys()].map((s) => `mcp:${s}`)].join(', ');
  throw new AgentsFileError(
    loaded.file,
    unknown.map(
      (ref) =>
        `${ref.where}: agent "${ref.agent}" names a tool no worker here has: "${ref.name}"; the worker has ${offered} ` +
        `(tools of one's own: agio serve --tools FILE, or \`tools:\` in this file)`,
    ),
  );
}
