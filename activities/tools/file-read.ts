// The `file_read` tool: reads a text file in the workspace as numbered lines (like `cat -n`), a window
// at a time.
import { z } from 'zod';
import { defineTool } from './define-tool';
import { openInWorkspace } from './safe-open';

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;

/** Reads a workspace file and returns `   12\tline` numbered lines, marking truncation. */
export const fileReadTool = defineTool({
  name: 'file_read',
  description:
    'Read a text file from the workspace. Returns numbered lines ("   12\\tcontent", like `cat -n`). ' +
    `Reads at most ${DEFAULT_LIMIT} lines by default; use offset and limit to page through long files.`,
  parameters: z.object({
    path: z.string().describe('File path, relative to the workspace (or absolute inside it).'),
    offset: z.number().int().min(1).optional().describe('1-based line number to start reading from (default 1).'),
    limit: z.number().int().min(1).optional().describe(`Maximum number of lines to read (default ${DEFAULT_LIMIT}).`),
  }),
  idempotent: true,
  // Reads the workspace and returns: no round trip through the server (a local activity).
  quick: true,
  async execute({ path: userPath, offset = 1, limit = DEFAULT_LIMIT }, ctx) {
    const { handle, stat } = await openInWorkspace(ctx.workspace, userPath);
    let buf: Buffer;
    try {
      if (stat.isDirectory()) throw new Error(`"${userPath}" is a directory, not a file; use ls to list it.`);
      buf = await handle.readFile();
    } finally {
      await handle.close();
    }
    if (buf.subarray(0, 8192).includes(0))
      throw new Error(`"${userPath}" looks like a binary file (${buf.length} bytes); file_read reads text only.`);
    const text = buf.toString('utf8');
    if (text.length === 0) return `(empty file: ${userPath})`;
    const lines = text.split(/\r?\n/);
    if (text.endsWith('\n')) lines.pop();
    const total = lines.length;
    if (offset > total) throw new Error(`offset ${offset} is past the end of "${userPath}" (${total} lines).`);
    const end = Math.min(total, offset - 1 + limit);
    const out: string[] = [];
    for (let i = offset - 1; i < end; i++) {
      const line = lines[i];
      const shown =
        line.length > MAX_LINE_CHARS
          ? `${line.slice(0, MAX_LINE_CHARS)} [… line truncated, ${line.length} chars …]`
          : line;
      out.push(`${String(i + 1).padStart(6)}\t${shown}`);
    }
    if (end < total || offset > 1) {
      const more = end < total ? ` Use offset=${end + 1} to read more.` : '';
      out.push(`[… showing lines ${offset}–${end} of ${total}.${more} …]`);
    }
    return out.join('\n');
  },
});
