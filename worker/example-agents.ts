// The example agents the embedded server starts with when no agents file is given: agents/examples.yaml, the same
// kind of file a user writes (`agio serve --agents FILE`).
import path from 'node:path';
import { loadAgentsFile, type LoadedAgents } from './agents-file';
import { projectRoot } from './project-root';

/** The example agents file shipped with Agio. */
export const EXAMPLE_AGENTS_FILE = path.join(projectRoot(), 'agents', 'examples.yaml');

/**
 * The agents a worker, bridge or `agio serve` serves: the given file's (AGIO_AGENTS, `--agents`), else the examples
 * (assistant, coder, researcher, lead). Read when asked for, so a process given its own file never reads the examples.
 */
export function agentsToServe(file?: string): LoadedAgents {
  return loadAgentsFile(file ?? EXAMPLE_AGENTS_FILE);
}
