// ESLint run on probe sources, for the tests of the lint rules (tests/unit/lint-*.test.ts).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Source text linted as if it were the file at `filePath`. */
export interface Probe {
  filePath: string;
  code: string;
}

/**
 * The project's config without its type-aware rules: the import rules need no types, and building the TypeScript
 * program they would load costs most of a probe run's time.
 */
const UNTYPED = {
  files: ['**/*.ts', '**/*.tsx'],
  languageOptions: { parserOptions: { projectService: false } },
  rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
};

/**
 * Lints every probe with one ESLint instance in one child process (ESLint's ESM config cannot load inside jest's
 * module sandbox), with the project's config, or without its type-aware rules (`typed: false`). The type-aware rules
 * lint only files of the TypeScript project, so each probe borrows the path of a file that exists; its text is never
 * written anywhere.
 */
export function lintAll(probes: Probe[], { typed = true } = {}): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    const probes = JSON.parse(await new Response(process.stdin).text());
    const eslint = new ESLint({ cwd: process.cwd(), ${typed ? '' : `overrideConfig: ${JSON.stringify(UNTYPED)}`} });
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

/** A probe's text importing `specifier` as a value. */
export const valueImport = (specifier: string) => `import * as probe from '${specifier}';\nexport const x = probe;\n`;
/** A probe's text importing `specifier` for its types only. */
export const typeImport = (specifier: string) =>
  `import type * as probe from '${specifier}';\nexport type X = typeof probe;\n`;
