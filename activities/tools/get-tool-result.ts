// get_tool_result: reads back the full output of a tool call whose result was truncated in the conversation.
import { z } from 'zod';
import type { ToolResultStore } from '../../stores';
import { defineTool } from './define-tool';

/** Largest page, in UTF-8 bytes, whatever the run allows. */
const MAX_PAGE_BYTES = 60_000;
/** Room left in the run's output limit for the trailer that says where the next page starts. */
const TRAILER_BYTES = 120;
/** The output limit when the caller gives none (RunLimits' default maxToolOutputBytes). */
const DEFAULT_OUTPUT_BYTES = 64 * 1024;

/** The tool over a ToolResultStore; scoped to the calling run and tenant. */
export function createGetToolResultTool(store: ToolResultStore) {
  return defineTool({
    name: 'get_tool_result',
    description:
      'Read the full output of an earlier tool call whose result was truncated. Use offset to page through it.',
    parameters: z.object({
      ref: z.string().describe('The ref given in the truncated result, e.g. tr_…'),
      offset: z.number().int().nonnegative().optional().describe('Character offset to start at (default 0).'),
    }),
    idempotent: true,
    workspace: 'none',
    // Reads a stored output and returns: no round trip through the server (a local activity).
    quick: true,
    async execute({ ref, offset = 0 }, ctx) {
      const content = await store.get(ctx.tenant ?? 'default', ctx.runId, ref);
      if (content === undefined) throw new Error(`no stored output "${ref}" for this run`);
      // A page must fit the run's own output limit with its trailer, or it would be truncated (and stored) again.
      const budget = Math.min(MAX_PAGE_BYTES, (ctx.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES) - TRAILER_BYTES);
      const page = pageAt(content, offset, budget);
      const end = offset + page.length;
      return {
        content:
          end < content.length
            ? `${page}\n[… ${content.length - end} more characters: call again with offset ${end}]`
            : page,
        metadata: { ref, offset, totalChars: content.length },
      };
    },
  });
}

/**
 * The longest slice of `content` from `offset` that is at most `maxBytes` UTF-8 bytes and ends on a character
 * boundary (never inside a surrogate pair); at least one character, so paging always moves on.
 */
export function pageAt(content: string, offset: number, maxBytes: number): string {
  // No character is less than one byte, so the page has at most maxBytes UTF-16 units.
  let page = content.slice(offset, offset + Math.max(1, maxBytes));
  if (Buffer.byteLength(page, 'utf8') > maxBytes) {
    const bytes = Buffer.from(page, 'utf8');
    let cut = Math.max(0, maxBytes);
    while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
    // Each character kept decodes to as many UTF-16 units as it had, so the length maps back onto `content`.
    page = page.slice(0, bytes.subarray(0, cut).toString('utf8').length);
  }
  const last = page.charCodeAt(page.length - 1);
  if (page.length > 1 && last >= 0xd800 && last <= 0xdbff) page = page.slice(0, -1);
  if (!page && offset < content.length) page = String.fromCodePoint(content.codePointAt(offset)!);
  return page;
}
