// The `ls` tool: lists one workspace directory, directories marked with a trailing `/`.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { openInWorkspace } from './safe-open';

const MAX_ENTRIES = 1000;

/** Lists a workspace directory's entries, sorted, with `/` after directories. */
export const lsTool = defineTool({
  name: 'ls',
  description:
    'List the entries of a workspace directory (default: the workspace root), sorted; directories end with "/".',
  parameters: z.object({
    path: z.string().optional().describe('Directory path, relative to the workspace (default ".").'),
  }),
  idempotent: true,
  // Reads the workspace and returns: no round trip through the server (a local activity).
  quick: true,
  async execute({ path: userPath = '.' }, ctx) {
    const { handle, stat, real: dir } = await openInWorkspace(ctx.workspace, userPath);
    let entries;
    try {
      if (!stat.isDirectory()) throw new Error(`"${userPath}" is a file, not a directory; use file_read to read it.`);
      // Listed through the checked descriptor: a directory swapped for a link meanwhile is not what is read.
      entries = await fs.readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
    } finally {
      await handle.close();
    }
    const names = await Promise.all(
      entries.map(async (e) => {
        let isDir = e.isDirectory();
        if (e.isSymbolicLink())
          isDir = (await fs.stat(path.join(dir, e.name)).catch(() => undefined))?.isDirectory() ?? false;
        return isDir ? `${e.name}/` : e.name;
      }),
    );
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (names.length === 0) return `(empty directory: ${userPath})`;
    if (names.length <= MAX_ENTRIES) return names.join('\n');
    return `${names.slice(0, MAX_ENTRIES).join('\n')}\n[… ${names.length - MAX_ENTRIES} more entries not shown …]`;
  },
});
