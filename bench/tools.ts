// The trivial tool every benchmark agent calls, shared by the worker process (registered as a Temporal
// activity) and by the in-process baseline loop of B1 (called directly).
import { z } from 'zod';
import { defineTool, type ToolContext } from '../activities/tools/define-tool';

/** Echoes its argument back: the cheapest possible tool, so the figures measure orchestration, not tools. Quick,
 * like the built-in read-only tools: a local activity. */
export const benchEchoTool = defineTool({
  name: 'bench_echo',
  description: 'Echoes the number it is given.',
  parameters: z.object({ i: z.number().int() }),
  idempotent: true,
  quick: true,
  async execute({ i }) {
    return `echo ${i}`;
  },
});

/** The same tool as an activity (not quick), for the step of a tool that needs one (B1). */
export const benchEchoActivityTool = defineTool({ ...benchEchoTool, name: 'bench_echo_activity', quick: false });

/** Both bench tools. */
export const benchTools = [benchEchoTool, benchEchoActivityTool];

/** A ToolContext for calling a tool outside Temporal (the baseline loop). */
export function directToolContext(workspace: string, runId: string, toolCallId: string): ToolContext {
  return {
    workspace,
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    idempotencyKey: `${runId}/${toolCallId}`,
    runId,
    toolCallId,
  };
}
