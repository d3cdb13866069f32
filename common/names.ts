// Names shared by workers, clients and the bridge: task queue, workflow types, ids.

/** Default task queue of Agio workers. */
export const DEFAULT_TASK_QUEUE = 'agio';

/** Workflow type names (the exported function names in workflows/index.ts). */
export const WorkflowType = {
  agentRun: 'agentRun',
  loop: 'loopAgentRun',
  sequential: 'sequentialAgentRun',
  parallel: 'parallelAgentRun',
  /** A run started by an agent's name: resolves it on the worker, then continues as new as the agent's own type. */
  byName: 'agentByName',
} as const;

/** The workflow type that runs an agent of this kind. */
export function workflowTypeFor(kind: 'llm' | 'loop' | 'sequential' | 'parallel'): string {
  return kind === 'llm' ? WorkflowType.agentRun : WorkflowType[kind];
}

/** Workspace directory of a root run, relative to the worker's workspace root. */
export function runWorkspace(rootRunId: string): string {
  return `runs/${rootRunId.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}
