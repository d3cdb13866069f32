// A run's end as an MCP tool result: its answer (and structured output), or a tool error saying it failed or was
// cancelled, so the client's model reads why.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgioClient, RunHandle } from '../../client/agio-client';
import { RunCancelledError, RunFailedError } from '../../client/errors';
import { objectOutputSchema, toolError, toolResultOf } from './agent-tools';

/** Waits for the run to end and answers with its result (RunNotFoundError and other surprises propagate). */
export async function runResult(agio: AgioClient, run: { handle: RunHandle; agent?: string }): Promise<CallToolResult> {
  const agent = run.agent === undefined ? undefined : agio.agents.find(run.agent);
  try {
    const output = await run.handle.result();
    return toolResultOf(output, agent !== undefined && objectOutputSchema(agent) !== undefined);
  } catch (err) {
    if (err instanceof RunCancelledError) return toolError(`the run was cancelled`, run.handle.runId);
    if (err instanceof RunFailedError) return toolError(err.message, run.handle.runId);
    throw err;
  }
}
