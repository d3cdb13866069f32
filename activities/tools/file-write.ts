// The `file_write` tool: creates or overwrites a file in the workspace, creating parent directories.
import { z } from 'zod';
import { defineTool } from './define-tool';
import { openInWorkspace, replaceContent } from './safe-open';

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
    const { handle } = await openInWorkspace(ctx.workspace, userPath, { mode: 'write', create: true }).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EISDIR')
        throw new Error(`"${userPath}" is a directory; give a file path.`);
      throw err;
    });
    const bytes = Buffer.byteLength(content, 'utf8');
    try {
      await replaceContent(handle, content);
    } finally {
      await handle.close();
    }
    return { content: `Wrote ${bytes} bytes to ${userPath}.`, metadata: { bytes } };
  },
});
