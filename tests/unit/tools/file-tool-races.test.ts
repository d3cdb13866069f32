// The in-process file tools against links planted in the workspace: a hard link to a file outside is refused by every
// file tool, and a symlink swapped in after the path was checked (a parent directory or the file itself) is not
// followed.
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileEditTool } from '../../../activities/tools/file-edit';
import { fileReadTool } from '../../../activities/tools/file-read';
import { fileWriteTool } from '../../../activities/tools/file-write';
import { openResolved } from '../../../activities/tools/safe-open';
import { resolveInWorkspace, WorkspaceEscapeError } from '../../../activities/tools/workspace';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';

let t: TestToolContext;
let outside: string;
const SECRET = 'outside the workspace\n';

beforeEach(async () => {
  t = await makeToolContext();
  outside = await t.tmpDir('agio-outside-');
  await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
});
afterEach(() => t.cleanup());

describe('a hard link to a file outside the workspace', () => {
  beforeEach(() => fs.link(path.join(outside, 'secret.txt'), path.join(t.workspace, 'linked.txt')));

  test('is refused by file_read, file_write and file_edit, and the outside file is unchanged', async () => {
    await expect(callTool(fileReadTool, { path: 'linked.txt' }, t.ctx)).rejects.toThrow(/hard links/);
    await expect(callTool(fileWriteTool, { path: 'linked.txt', content: 'pwned' }, t.ctx)).rejects.toThrow(
      /hard links/,
    );
    await expect(
      callTool(fileEditTool, { path: 'linked.txt', old_string: 'outside', new_string: 'pwned' }, t.ctx),
    ).rejects.toThrow(/hard links/);
    await expect(fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).resolves.toBe(SECRET);
  });
});

describe('a symlink swapped in after the check', () => {
  test('in place of a parent directory: the open is refused as outside the workspace', async () => {
    await fs.mkdir(path.join(t.workspace, 'dir'));
    await fs.writeFile(path.join(t.workspace, 'dir', 'secret.txt'), 'inside\n');
    const real = await resolveInWorkspace(t.workspace, 'dir/secret.txt', { mustExist: true });
    // The race: after the check, the directory becomes a link to the outside directory.
    await fs.rm(path.join(t.workspace, 'dir'), { recursive: true });
    await fs.symlink(outside, path.join(t.workspace, 'dir'));
    for (const flags of [constants.O_RDONLY, constants.O_WRONLY | constants.O_CREAT]) {
      await expect(openResolved(t.workspace, real, 'dir/secret.txt', flags)).rejects.toThrow(WorkspaceEscapeError);
    }
    await expect(fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).resolves.toBe(SECRET);
  });

  test('in place of the file itself: the open does not follow it', async () => {
    await fs.writeFile(path.join(t.workspace, 'notes.txt'), 'inside\n');
    const real = await resolveInWorkspace(t.workspace, 'notes.txt', { mustExist: true });
    await fs.rm(path.join(t.workspace, 'notes.txt'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(t.workspace, 'notes.txt'));
    for (const flags of [constants.O_RDONLY, constants.O_WRONLY]) {
      await expect(openResolved(t.workspace, real, 'notes.txt', flags)).rejects.toThrow(/symbolic link/);
    }
    await expect(fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).resolves.toBe(SECRET);
  });
});

test('file_write and file_edit still write through the checked descriptor', async () => {
  await callTool(fileWriteTool, { path: 'a/b/c.txt', content: 'one two two' }, t.ctx);
  await callTool(fileEditTool, { path: 'a/b/c.txt', old_string: 'two', new_string: '3', replace_all: true }, t.ctx);
  await expect(fs.readFile(path.join(t.workspace, 'a/b/c.txt'), 'utf8')).resolves.toBe('one 3 3');
  await callTool(fileWriteTool, { path: 'a/b/c.txt', content: 'x' }, t.ctx);
  await expect(fs.readFile(path.join(t.workspace, 'a/b/c.txt'), 'utf8')).resolves.toBe('x');
});
