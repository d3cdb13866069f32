// Behaviour of the workspace file tools: file_read, file_write, file_edit, ls, glob and grep.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileEditTool } from '../../../activities/tools/file-edit';
import { fileReadTool } from '../../../activities/tools/file-read';
import { fileWriteTool } from '../../../activities/tools/file-write';
import { globTool } from '../../../activities/tools/glob';
import { grepTool } from '../../../activities/tools/grep';
import { lsTool } from '../../../activities/tools/ls';
import { globMatch } from '../../../activities/tools/glob-match';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';

let t: TestToolContext;
const write = async (rel: string, content: string) => {
  await fs.mkdir(path.dirname(path.join(t.workspace, rel)), { recursive: true });
  await fs.writeFile(path.join(t.workspace, rel), content);
};

beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(() => t.cleanup());

describe('file_read', () => {
  test('returns cat -n style numbered lines', async () => {
    await write('a.txt', 'alpha\nbeta\n');
    expect((await callTool(fileReadTool, { path: 'a.txt' }, t.ctx)).content).toBe('     1\talpha\n     2\tbeta');
  });

  test('reads a window with offset and limit and says how to read on', async () => {
    await write('long.txt', Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
    const out = (await callTool(fileReadTool, { path: 'long.txt', offset: 10, limit: 3 }, t.ctx)).content;
    expect(out.split('\n').slice(0, 3)).toEqual(['    10\tline 10', '    11\tline 11', '    12\tline 12']);
    expect(out).toMatch(/showing lines 10–12 of 50\. Use offset=13 to read more/);
  });

  test('marks truncation at the default limit of 2000 lines', async () => {
    await write('huge.txt', 'x\n'.repeat(2500));
    const lines = (await callTool(fileReadTool, { path: 'huge.txt' }, t.ctx)).content.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe('  2000\tx');
    expect(lines[2000]).toMatch(/of 2500\. Use offset=2001/);
  });

  test('gives clear errors for a directory, a missing file and an offset past the end', async () => {
    await write('dir/f.txt', 'one\n');
    await expect(callTool(fileReadTool, { path: 'dir' }, t.ctx)).rejects.toThrow(/"dir" is a directory/);
    await expect(callTool(fileReadTool, { path: 'missing.txt' }, t.ctx)).rejects.toThrow(
      /No such file or directory: missing.txt/,
    );
    await expect(callTool(fileReadTool, { path: 'dir/f.txt', offset: 5 }, t.ctx)).rejects.toThrow(
      /past the end.*1 lines/,
    );
  });
});

describe('file_write', () => {
  test('creates parent directories, reports bytes written, and round-trips through file_read', async () => {
    const out = await callTool(fileWriteTool, { path: 'deep/er/note.md', content: 'héllo\nworld\n' }, t.ctx);
    expect(out.content).toBe('Wrote 13 bytes to deep/er/note.md.');
    expect(out.metadata).toEqual({ bytes: 13 });
    expect((await callTool(fileReadTool, { path: 'deep/er/note.md' }, t.ctx)).content).toBe(
      '     1\théllo\n     2\tworld',
    );
    await callTool(fileWriteTool, { path: 'deep/er/note.md', content: 'replaced' }, t.ctx);
    await expect(fs.readFile(path.join(t.workspace, 'deep/er/note.md'), 'utf8')).resolves.toBe('replaced');
  });
});

describe('file_edit', () => {
  beforeEach(() => write('code.ts', 'const a = 1;\nconst b = 1;\nconst c = 2;\n'));
  const read = () => fs.readFile(path.join(t.workspace, 'code.ts'), 'utf8');

  test('replaces a unique occurrence', async () => {
    const out = await callTool(fileEditTool, { path: 'code.ts', old_string: 'c = 2', new_string: 'c = $& 3' }, t.ctx);
    expect(out.content).toBe('Replaced 1 occurrence in code.ts.');
    await expect(read()).resolves.toBe('const a = 1;\nconst b = 1;\nconst c = $& 3;\n');
  });

  test('refuses when old_string is absent', async () => {
    await expect(
      callTool(fileEditTool, { path: 'code.ts', old_string: 'const d', new_string: 'x' }, t.ctx),
    ).rejects.toThrow(/not found in "code.ts"/);
  });

  test('refuses a non-unique old_string and says how many occurrences there are', async () => {
    await expect(
      callTool(fileEditTool, { path: 'code.ts', old_string: '= 1;', new_string: '= 9;' }, t.ctx),
    ).rejects.toThrow(/occurs 2 times/);
    await expect(read()).resolves.toBe('const a = 1;\nconst b = 1;\nconst c = 2;\n');
  });

  test('replaces every occurrence with replace_all', async () => {
    const out = await callTool(
      fileEditTool,
      { path: 'code.ts', old_string: '= 1;', new_string: '= 9;', replace_all: true },
      t.ctx,
    );
    expect(out.content).toBe('Replaced 2 occurrences in code.ts.');
    await expect(read()).resolves.toBe('const a = 9;\nconst b = 9;\nconst c = 2;\n');
  });
});

describe('ls', () => {
  test('lists sorted entries with a trailing / on directories, defaulting to the workspace root', async () => {
    await write('b.txt', '');
    await write('a/inner.txt', '');
    await write('c/d/e.txt', '');
    expect((await callTool(lsTool, {}, t.ctx)).content).toBe('a/\nb.txt\nc/');
    expect((await callTool(lsTool, { path: 'c' }, t.ctx)).content).toBe('d/');
    await expect(callTool(lsTool, { path: 'b.txt' }, t.ctx)).rejects.toThrow(/not a directory/);
  });
});

describe('glob', () => {
  beforeEach(async () => {
    for (const f of [
      'a.ts',
      'b.js',
      'src/c.ts',
      'src/d.tsx',
      'src/deep/e.ts',
      'src/x1.md',
      'node_modules/m.ts',
      '.git/g.ts',
    ])
      await write(f, '');
  });
  const glob = async (args: { pattern: string; path?: string; max_results?: number }) =>
    (await callTool(globTool, args, t.ctx)).content;

  test('matches ** across directories, * within one segment, ? and {a,b}', async () => {
    expect(await glob({ pattern: '**/*.ts' })).toBe('a.ts\nsrc/c.ts\nsrc/deep/e.ts');
    expect(await glob({ pattern: '*.ts' })).toBe('a.ts');
    expect(await glob({ pattern: 'src/*.{ts,tsx}' })).toBe('src/c.ts\nsrc/d.tsx');
    expect(await glob({ pattern: 'src/x?.md' })).toBe('src/x1.md');
  });

  test('searches under path and returns paths relative to the workspace, skipping node_modules and .git', async () => {
    expect(await glob({ pattern: '**/*.ts', path: 'src' })).toBe('src/c.ts\nsrc/deep/e.ts');
    expect(await glob({ pattern: '**/m.ts' })).toMatch(/^No files match/);
  });

  test('caps results and says so', async () => {
    const out = await glob({ pattern: '**/*', max_results: 2 });
    expect(out.split('\n').slice(0, 2)).toEqual(['a.ts', 'b.js']);
    expect(out).toMatch(/results capped at 2/);
  });

  test('the pattern converter anchors and escapes', () => {
    expect(globMatch('**/*.ts')('x.ts')).toBe(true);
    expect(globMatch('*.ts')('dir/x.ts')).toBe(false);
    expect(globMatch('a+b(1).txt')('a+b(1).txt')).toBe(true);
    expect(globMatch('[!a]*.md')('b.md')).toBe(true);
  });
});

describe('grep', () => {
  beforeEach(async () => {
    await write('src/a.ts', 'import x\nTODO: fix\n');
    await write('src/b.js', 'todo later\nTODO again\n');
    await write('notes.md', 'TODO write docs\n');
  });
  const grep = (args: Record<string, unknown>) => callTool(grepTool, args, t.ctx);

  test('returns file:line:text matches relative to the workspace', async () => {
    expect((await grep({ pattern: 'TODO' })).content).toBe(
      'notes.md:1:TODO write docs\nsrc/a.ts:2:TODO: fix\nsrc/b.js:2:TODO again',
    );
  });

  test('filters files with glob, searches under path, and honours ignore_case', async () => {
    expect((await grep({ pattern: 'todo', glob: '*.{js,md}', ignore_case: true })).content).toBe(
      'notes.md:1:TODO write docs\nsrc/b.js:1:todo later\nsrc/b.js:2:TODO again',
    );
    expect((await grep({ pattern: 'TODO', path: 'src', glob: '*.ts' })).content).toBe('src/a.ts:2:TODO: fix');
    expect((await grep({ pattern: 'TODO', path: 'src/b.js' })).content).toBe('src/b.js:2:TODO again');
  });

  test('caps matches at max_results with a marker', async () => {
    const out = (await grep({ pattern: 'TODO', max_results: 2 })).content.split('\n');
    expect(out).toHaveLength(3);
    expect(out[2]).toMatch(/results capped at 2 matches/);
  });

  test('reports an invalid regular expression clearly', async () => {
    await expect(grep({ pattern: '(unclosed' })).rejects.toThrow(/Invalid regular expression "\(unclosed"/);
  });
});
