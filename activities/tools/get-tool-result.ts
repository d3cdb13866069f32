// get_tool_result: reads back the full output of a tool call whose result was truncated in the conversation.
import { z } from 'zod';
import type { ToolResultStore } from '../../stores';
import { defineTool } from './define-tool';

const MAX_CHARS = 60_000;

/** The tool over a ToolResultStore; scoped to the calling run and tenant. */
export function createGetToolResultTool(store: ToolResultStore) {
  return defineTool({
    name: 'get_tool_result',
    description: 'Read the full output of an earlier tool call whose result was truncated. Use offset to page through it.',
    parameters: z.object({
      ref: z.string().describe('The ref given in the truncated result, e.g. tr_…'),
      offset: z.number().int().nonnegative().optional().describe('Character offset to start at (default 0).'),
    }),
    idempotent: true,
    async execute({ ref, offset = 0 }, ctx) {
      const content = await store.get(ctx.tenant ?? 'default', ctx.runId, ref);
      if (content === undefined) throw new Error(`no stored output "${ref}" for this run`);
      const page = content.slice(offset, offset + MAX_CHARS);
      const end = offset + page.length;
      return { content: end < content.length ? `${page}\n[… ${content.length - end} more characters: call again with offset ${end}]` : page, metadata: { ref, offset, totalChars: content.length } };
    },
  });
}
