// The `file_write` tool: creates or overwrites a file in the workspace, creating parent directories.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { resolveInWorkspace } from './workspace';

/** Writes `content` to a workspace file (mkdir -p of its parent) and reports the bytes written. */
export const fileWriteTool = defineTool({
  name: 'file_write',
  description:
    'Create or overwrite a file in the workspace with the given content. Parent directories are created as needed.',
  parameters: z.object({
    path: z.string().describe('File path, relative to the workspace (or absolute inside it).'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  idempotent: true,
  workspace: 'write',
  async execute({ path: userPath, content }, ctx) {
    const file = await resolveInWorkspace(ctx.workspace, userPath);
    const existing = await fs.stat(file).catch(() => undefined);
    if (existing?.isDirectory()) throw new Error(`"${userPath}" is a directory; give a file path.`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Re-check after mkdir, in case a symlink was swapped into the path meanwhile.
    await resolveInWorkspace(ctx.workspace, userPath);
    const bytes = Buffer.byteLength(content, 'utf8');
    await fs.writeFile(file, content, 'utf8');
    return { content: `Wrote ${bytes} bytes to ${userPath}.`, metadata: { bytes } };
  },
});
