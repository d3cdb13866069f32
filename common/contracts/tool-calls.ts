// The runTool and resolveTools activities' contract (activities/run-tool.ts implements them): a tool call in, what
// the model sees of it out; an agent's tool names in, the specs the workflow schedules them with out.
import type { EventBase } from '../events';
import type { AgentSpec, ToolSpec } from '../specs';

/** Input of runTool. */
export interface RunToolInput {
  runId: string;
  toolCallId: string;
  /** Tenant and step of the call: scope for stored citations and full outputs. */
  tenant?: string;
  stepId?: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
  /** Workspace relative to the worker's workspace root. */
  workspace: string;
  maxOutputBytes: number;
  /** Envelope of the run's events: a retried attempt announces itself with STEP_RETRY in the root's Wire. */
  eventBase?: EventBase;
}

/** What the model sees of a tool call. */
export interface RunToolOutput {
  content: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
}

/**
 * Input of resolveTools: the agent's tool names (a group name such as an MCP server's `mcp:<server>` stands for its
 * tools), and sub-agents whose healthcheck decides whether they are offered.
 */
export interface ResolveToolsInput {
  /** The agent whose tools these are (absent in runs started before it was sent): an unknown tool's error names it. */
  agent?: string;
  names: string[];
  healthchecks?: AgentSpec[];
}

/** Specs of the tools, and sub-agents that failed their healthcheck. */
export interface ResolveToolsOutput {
  specs: ToolSpec[];
  unhealthyAgents: string[];
}
