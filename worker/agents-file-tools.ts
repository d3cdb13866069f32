// The check that a worker will have every tool an agents file's agents name (agents-file.ts collects them, with where
// in the file): run before anything starts (the Temporal server, MCP servers), so a misspelled tool is reported with
// the file and line like the file's other mistakes.
import { EXIT_LOOP_TOOL } from '../common';
import { AgentsFileError, type LoadedAgents } from './agents-file';

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
