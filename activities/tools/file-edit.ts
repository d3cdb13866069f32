// The `file_edit` tool: exact-string replacement in a workspace file, refusing ambiguous edits.
import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { openInWorkspace, replaceContent } from './safe-open';

function countOccurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** Replaces `old_string` with `new_string` in a workspace file (once, or everywhere with `replace_all`). */
export const fileEditTool = defineTool({
  name: 'file_edit',
  description:
    'Edit a workspace file by exact string replacement. old_string must match the file exactly (including whitespace) ' +
    'and be unique unless replace_all is true; include surrounding lines to make it unique.',
  parameters: z.object({
    path: z.string().describe('File path, relative to the workspace (or absolute inside it).'),
    old_string: z.string().describe('The exact text to replace.'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence instead of requiring a unique match (default false).'),
  }),
  idempotent: false,
  workspace: 'write',
  async execute(
    { path: userPath, old_string: oldString, new_string: newString, replace_all: replaceAll = false },
    ctx,
  ) {
    if (oldString === '') throw new Error('old_string must not be empty.');
    if (oldString === newString) throw new Error('old_string and new_string are identical; nothing to change.');
    const { handle, stat } = await openInWorkspace(ctx.workspace, userPath, { mode: 'edit' }).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EISDIR')
        throw new Error(`"${userPath}" is a directory, not a file.`);
      throw err;
    });
    try {
      if (stat.isDirectory()) throw new Error(`"${userPath}" is a directory, not a file.`);
      return await edit(handle, userPath, oldString, newString, replaceAll);
    } finally {
      await handle.close();
    }
  },
});

/** Replaces in the open file and writes it back through the same descriptor. */
async function edit(handle: FileHandle, userPath: string, oldString: string, newString: string, replaceAll: boolean) {
  const text = await handle.readFile('utf8');
  const count = countOccurrences(text, oldString);
  if (count === 0)
    throw new Error(`old_string was not found in "${userPath}"; it must match the file exactly, including whitespace.`);
  if (count > 1 && !replaceAll) {
    throw new Error(
      `old_string occurs ${count} times in "${userPath}"; add surrounding context to make it unique, or set replace_all to replace all ${count}.`,
    );
  }
  let updated: string;
  if (replaceAll) {
    updated = text.split(oldString).join(newString);
  } else {
    const at = text.indexOf(oldString);
    updated = text.slice(0, at) + newString + text.slice(at + oldString.length);
  }
  await replaceContent(handle, updated);
  const replaced = replaceAll ? count : 1;
  return {
    content: `Replaced ${replaced} occurrence${replaced === 1 ? '' : 's'} in ${userPath}.`,
    metadata: { replaced },
  };
}
