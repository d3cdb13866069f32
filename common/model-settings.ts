// A run's own model settings over its agent's: merged into the spec the run is started with, so its history records
// the settings every model call of the run used. Pure: the client merges them for a spec, the worker for a name.
import { isWorkflowAgent, type AnyAgentSpec } from './workflow-agents';
import type { ModelSettings } from './specs';

/**
 * The agent with `settings` merged over its own model settings: an LLM agent's, or for a workflow agent every LLM
 * sub-agent's, at any depth. Agents used as tools keep theirs: they are the tool author's choice, not the run's.
 */
export function withModelSettings<T extends AnyAgentSpec>(agent: T, settings: ModelSettings): T {
  if (isWorkflowAgent(agent))
    return { ...agent, subAgents: agent.subAgents.map((sub) => withModelSettings(sub, settings)) };
  return { ...agent, modelSettings: { ...agent.modelSettings, ...definedOnly(settings) } };
}

/** The settings that are set: `{ temperature: undefined }` leaves the agent's temperature alone. */
function definedOnly(settings: ModelSettings): ModelSettings {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as ModelSettings;
}
