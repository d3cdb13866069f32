// Agio's agents as MCP tools: one tool per agent the client holds, named as the agent, taking the prompt (and an
// optional session id); an agent whose output schema describes an object declares it as the tool's output schema,
// and its parsed output comes back as the result's structuredContent.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AnyAgentSpec, RunOutput } from '../../common';

/** Longest prompt a tool call may carry (characters); the run's own input limit may refuse a shorter one. */
export const MAX_TOOL_INPUT_CHARS = 256 * 1024;

/** The arguments every agent tool takes. */
export const AgentToolArguments = z
  .object({
    input: z
      .string()
      .min(1, 'input: the prompt for the agent, at least 1 character')
      .max(MAX_TOOL_INPUT_CHARS, `input: at most ${MAX_TOOL_INPUT_CHARS} characters`)
      .describe('The prompt for the agent'),
    sessionId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'sessionId: 1-128 letters, digits, . _ : -')
      .optional()
      .describe("Continue this session's conversation (a new session when unknown)"),
  })
  .strict();
/** The arguments every agent tool takes. */
export type AgentToolArguments = z.infer<typeof AgentToolArguments>;

/** The arguments' JSON Schema as tools/list shows it (draft-07, understood by every client's validator). */
const INPUT_SCHEMA = withoutDialect(z.toJSONSchema(AgentToolArguments, { target: 'draft-7' })) as Tool['inputSchema'];

/** A JSON Schema without its `$schema` line: clients compile tool schemas with their own dialect. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The agent's output schema when it describes an object (MCP output schemas are object schemas). */
export function objectOutputSchema(agent: AnyAgentSpec): Record<string, unknown> | undefined {
  const schema = agent.kind === 'llm' ? agent.outputSchema : undefined;
  return schema && schema.type === 'object' ? withoutDialect(schema) : undefined;
}

/** The MCP tool of one agent: optional task support (a client without Tasks gets the result when the run ends). */
export function agentTool(agent: AnyAgentSpec): Tool {
  const outputSchema = objectOutputSchema(agent);
  return {
    name: agent.name,
    description: agent.description || `Run the Agio agent "${agent.name}"`,
    inputSchema: INPUT_SCHEMA,
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    execution: { taskSupport: 'optional' },
  };
}

/** A finished run as the tool's result: its answer as text, its parsed output as structuredContent (object schemas). */
export function toolResultOf(output: RunOutput, structured: boolean): CallToolResult {
  const parsed = output.output;
  const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  return {
    content: [{ type: 'text', text: output.response }],
    ...(structured && isObject ? { structuredContent: parsed as Record<string, unknown> } : {}),
    _meta: { 'agio/runId': output.runId },
  };
}

/** A tool error the client's model can read (a bad argument, a run that failed or was cancelled). */
export function toolError(message: string, runId?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    ...(runId ? { _meta: { 'agio/runId': runId } } : {}),
  };
}
