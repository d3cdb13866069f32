// Workspace confinement: resolveInWorkspace and every file tool refuse paths whose real location is
// outside the run's workspace (traversal, absolute paths, symlinks), and accept normal nested paths.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolDefinition } from '../../../activities/tools/define-tool';
import { fileEditTool } from '../../../activities/tools/file-edit';
import { fileReadTool } from '../../../activities/tools/file-read';
import { fileWriteTool } from '../../../activities/tools/file-write';
import { globTool } from '../../../activities/tools/glob';
import { grepTool } from '../../../activities/tools/grep';
import { lsTool } from '../../../activities/tools/ls';
import { ensureWorkspace, resolveInWorkspace, WorkspaceEscapeError } from '../../../activities/tools/workspace';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';

let t: TestToolContext;
let outside: string;

beforeEach(async () => {
  t = await makeToolContext();
  outside = await t.tmpDir('agio-outside-');
  await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
  await fs.mkdir(path.join(t.workspace, 'inside/nested'), { recursive: true });
  await fs.writeFile(path.join(t.workspace, 'inside/nested/a.txt'), 'hello\n');
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(t.workspace, 'link-file'));
  await fs.symlink(outside, path.join(t.workspace, 'link-dir'));
  await fs.symlink(path.join(outside, 'missing.txt'), path.join(t.workspace, 'dangling'));
  await fs.symlink(path.join(t.workspace, 'inside'), path.join(t.workspace, 'alias'));
});
afterEach(() => t.cleanup());

/** Escape attempts, each as a function of the outside directory's path. */
const escapes: Array<[string, () => string]> = [
  ['a ../ traversal', () => `../${path.basename(outside)}/secret.txt`],
  ['a deep ../ traversal', () => `inside/nested/../../../${path.basename(outside)}`],
  ['an absolute path outside', () => path.join(outside, 'secret.txt')],
  ['a symlink to a file outside', () => 'link-file'],
  ['a symlink to a directory outside', () => 'link-dir'],
  ['a file under a symlinked directory outside', () => 'link-dir/secret.txt'],
  ['a not-yet-existing path under a symlinked directory', () => 'link-dir/new/file.txt'],
  ['a dangling symlink to a missing file outside', () => 'dangling'],
];

describe('resolveInWorkspace', () => {
  test.each(escapes)('refuses %s with WorkspaceEscapeError', async (_label, userPath) => {
    const attempt = resolveInWorkspace(t.workspace, userPath());
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expect(resolveInWorkspace(t.workspace, userPath())).rejects.toMatchObject({
      name: 'WorkspaceEscapeError',
      message: expect.stringMatching(/outside the run's workspace/),
    });
  });

  test('resolves relative, absolute-inside, not-yet-existing and internally symlinked paths to real paths', async () => {
    const ws = t.workspace;
    await expect(resolveInWorkspace(ws, 'inside/nested/a.txt')).resolves.toBe(path.join(ws, 'inside/nested/a.txt'));
    await expect(resolveInWorkspace(ws, path.join(ws, 'inside/nested/a.txt'))).resolves.toBe(
      path.join(ws, 'inside/nested/a.txt'),
    );
    await expect(resolveInWorkspace(ws, 'inside/../inside/new/dir/b.txt')).resolves.toBe(
      path.join(ws, 'inside/new/dir/b.txt'),
    );
    await expect(resolveInWorkspace(ws, 'alias/nested/a.txt')).resolves.toBe(path.join(ws, 'inside/nested/a.txt'));
    await expect(resolveInWorkspace(ws, '.')).resolves.toBe(ws);
    await expect(resolveInWorkspace(ws, '')).resolves.toBe(ws);
  });

  test('with mustExist, a missing path inside is a "no such file" error, not an escape', async () => {
    await expect(resolveInWorkspace(t.workspace, 'nope.txt', { mustExist: true })).rejects.toThrow(
      /No such file or directory: nope.txt/,
    );
  });

  test('ensureWorkspace creates the directory tree and returns its real path', async () => {
    const dir = path.join(t.workspace, 'alias', 'runs', 'r1');
    await expect(ensureWorkspace(dir)).resolves.toBe(path.join(t.workspace, 'inside', 'runs', 'r1'));
    expect((await fs.stat(dir)).isDirectory()).toBe(true);
  });
});

/** Each file tool, called with one user path. */
const toolCalls: Array<[string, ToolDefinition, (p: string) => Record<string, unknown>]> = [
  ['file_read', fileReadTool, (p) => ({ path: p })],
  ['file_write', fileWriteTool, (p) => ({ path: p, content: 'pwned' })],
  ['file_edit', fileEditTool, (p) => ({ path: p, old_string: 'TOP', new_string: 'PWNED' })],
  ['ls', lsTool, (p) => ({ path: p })],
  ['glob', globTool, (p) => ({ pattern: '**/*', path: p })],
  ['grep', grepTool, (p) => ({ pattern: 'SECRET', path: p })],
];
const cases = toolCalls.flatMap(([name, tool, args]) =>
  escapes.map(([label, userPath]) => [name, label, tool, args, userPath] as const),
);

describe('file tools stay inside the workspace', () => {
  test.each(cases)('%s refuses %s', async (_name, _label, tool, args, userPath) => {
    await expect(callTool(tool, args(userPath()), t.ctx)).rejects.toThrow(/outside the run's workspace/);
    await expect(fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).resolves.toBe('TOP SECRET\n');
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  });

  test('grep and glob over the whole workspace do not follow symlinks out of it', async () => {
    const grep = await callTool(grepTool, { pattern: 'SECRET' }, t.ctx);
    expect(grep.content).toMatch(/^No matches/);
    const glob = await callTool(globTool, { pattern: '**/*.txt' }, t.ctx);
    expect(glob.content.split('\n')).toEqual(['inside/nested/a.txt']);
  });

  test('normal nested paths work for every file tool', async () => {
    const ctx = t.ctx;
    expect(
      (await callTool(fileWriteTool, { path: 'inside/nested/b.txt', content: 'one two\n' }, ctx)).isError,
    ).toBeFalsy();
    expect(
      (await callTool(fileEditTool, { path: 'inside/nested/b.txt', old_string: 'two', new_string: 'three' }, ctx))
        .isError,
    ).toBeFalsy();
    expect((await callTool(fileReadTool, { path: path.join(t.workspace, 'inside/nested/b.txt') }, ctx)).content).toBe(
      '     1\tone three',
    );
    expect((await callTool(lsTool, { path: 'inside/nested' }, ctx)).content).toBe('a.txt\nb.txt');
    expect((await callTool(globTool, { pattern: '*.txt', path: 'inside/nested' }, ctx)).content).toBe(
      'inside/nested/a.txt\ninside/nested/b.txt',
    );
    expect((await callTool(grepTool, { pattern: 'three', path: 'inside' }, ctx)).content).toBe(
      'inside/nested/b.txt:1:one three',
    );
  });
});
