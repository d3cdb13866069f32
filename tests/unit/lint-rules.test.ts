// The lint rules that keep workflow code deterministic: workflows/ and common/ may not import Node built-ins, I/O
// libraries or the folders that do I/O as values (their types they may), and floating promises are errors everywhere.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Source text linted as if it were the file at `filePath`. */
interface Probe {
  filePath: string;
  code: string;
}

/**
 * Lints every probe with one ESLint instance in one child process (ESLint's ESM config cannot load inside jest's
 * module sandbox). The type-aware rules lint only files of the TypeScript project, so each probe borrows the path of
 * a file that exists; its text is never written anywhere.
 */
function lintAll(probes: Probe[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    const probes = JSON.parse(await new Response(process.stdin).text());
    const eslint = new ESLint({ cwd: process.cwd() });
    const results = [];
    for (const { filePath, code } of probes) {
      const [result] = await eslint.lintText(code, { filePath });
      results.push(result.messages.map((m) => m.ruleId + ': ' + m.message));
    }
    console.log(JSON.stringify(results));
  `;
  const input = JSON.stringify(probes);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    input,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`eslint failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[][];
}

const WORKFLOW_FILE = 'workflows/index.ts';
const COMMON_FILE = 'common/index.ts';
const ACTIVITY_FILE = 'activities/index.ts';

/** Every folder workflow code may reach by `import type` only: as a barrel from workflows/, deep from common/. */
const forbidden = [
  ['activities', '../activities', '../activities/tools/mcp/config'],
  ['stores', '../stores', '../stores/types'],
  ['client', '../client', '../client/agio-client'],
  ['cli', '../cli', '../cli/commands'],
  ['bridge', '../bridge', '../bridge/server'],
  ['worker', '../worker', '../worker/create-worker'],
  ['devkit', '../devkit', '../devkit/free-port'],
  ['live', '../live', '../live/lane'],
  ['config', '../config', '../config/env'],
].flatMap(([folder, barrel, deep]) => [
  { folder, specifier: barrel, filePath: WORKFLOW_FILE },
  { folder, specifier: deep, filePath: COMMON_FILE },
]);

const valueImport = (specifier: string) => `import * as probe from '${specifier}';\nexport const x = probe;\n`;
const typeImport = (specifier: string) =>
  `import type * as probe from '${specifier}';\nexport type X = typeof probe;\n`;

const named = {
  nodeFsInWorkflow: {
    filePath: WORKFLOW_FILE,
    code: "import fs from 'node:fs';\nexport const x = fs.existsSync('a');\n",
  },
  ioLibrariesInCommon: {
    filePath: COMMON_FILE,
    code: "import OpenAI from 'openai';\nimport path from 'path';\nexport const x = [OpenAI, path];\n",
  },
  rootIndexInWorkflow: { filePath: WORKFLOW_FILE, code: valueImport('..') },
  reExportInCommon: { filePath: COMMON_FILE, code: "export { createMemoryStores } from '../stores';\n" },
  floatingPromise: {
    filePath: ACTIVITY_FILE,
    code: 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
  },
  nodeFsInActivity: {
    filePath: ACTIVITY_FILE,
    code: "import fs from 'node:fs';\nexport const x = fs.existsSync('a');\n",
  },
  storesInActivity: { filePath: ACTIVITY_FILE, code: valueImport('../stores') },
};

describe('lint rules', () => {
  jest.setTimeout(120_000);
  let results: { named: Record<keyof typeof named, string[]>; values: string[][]; types: string[][] };

  beforeAll(() => {
    const keys = Object.keys(named) as (keyof typeof named)[];
    const probes = [
      ...keys.map((key) => named[key]),
      ...forbidden.map(({ filePath, specifier }) => ({ filePath, code: valueImport(specifier) })),
      ...forbidden.map(({ filePath, specifier }) => ({ filePath, code: typeImport(specifier) })),
    ];
    const messages = lintAll(probes);
    results = {
      named: Object.fromEntries(keys.map((key, i) => [key, messages[i]])) as Record<keyof typeof named, string[]>,
      values: messages.slice(keys.length, keys.length + forbidden.length),
      types: messages.slice(keys.length + forbidden.length),
    };
  });

  it('forbids importing node:fs in a workflow file', () => {
    expect(
      results.named.nodeFsInWorkflow.some((m) => m.startsWith('no-restricted-imports') && m.includes('deterministic')),
    ).toBe(true);
  });

  it('forbids I/O libraries and bare built-ins in common/', () => {
    expect(results.named.ioLibrariesInCommon.filter((m) => m.startsWith('no-restricted-imports'))).toHaveLength(2);
  });

  const cases = forbidden.map((probe, i) => ({ ...probe, i }));

  it.each(cases)('forbids a value import of $folder as $specifier in $filePath', ({ i }) => {
    expect(results.values[i]).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*may import only common\/ and workflows\//),
    ]);
  });

  it.each(cases)('allows a type-only import of $folder as $specifier in $filePath', ({ i }) => {
    expect(results.types[i]).toEqual([]);
  });

  it("forbids the package's root index, which re-exports the worker, client and bridge", () => {
    expect(results.named.rootIndexInWorkflow).toEqual([expect.stringMatching(/^no-restricted-imports: '\.\.' /)]);
  });

  it('forbids re-exporting a value from a forbidden folder', () => {
    expect(results.named.reExportInCommon).toEqual([expect.stringMatching(/^no-restricted-imports: '\.\.\/stores' /)]);
  });

  it('makes a floating promise an error', () => {
    expect(results.named.floatingPromise.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(
      true,
    );
  });

  it('lets the same node:fs and stores imports pass outside workflow code', () => {
    expect(results.named.nodeFsInActivity).toEqual([]);
    expect(results.named.storesInActivity).toEqual([]);
  });
});
