// The lint rules that keep workflow code deterministic: Node built-ins and I/O modules are refused in
// workflows/ and common/, and floating promises are errors everywhere.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

async function lintProbe(dir: string, source: string): Promise<string[]> {
  const file = path.join(root, dir, `lint-probe-${randomUUID().slice(0, 8)}.ts`);
  fs.writeFileSync(file, source);
  try {
    // The real eslint binary: its ESM config cannot load inside jest's module sandbox.
    const run = spawnSync(path.join(root, 'node_modules/.bin/eslint'), ['--format', 'json', file], { cwd: root, encoding: 'utf8' });
    const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string; message: string }[] }[];
    return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

describe('lint rules', () => {
  jest.setTimeout(120_000);

  it('forbids importing node:fs in a workflow file', async () => {
    const messages = await lintProbe('workflows', "import fs from 'node:fs';\nexport const x = fs.existsSync('a');\n");
    expect(messages.some((m) => m.startsWith('no-restricted-imports') && m.includes('deterministic'))).toBe(true);
  });

  it('forbids I/O libraries and bare built-ins in common/', async () => {
    const messages = await lintProbe('common', "import OpenAI from 'openai';\nimport path from 'path';\nexport const x = [OpenAI, path];\n");
    expect(messages.filter((m) => m.startsWith('no-restricted-imports'))).toHaveLength(2);
  });

  it('allows type-only imports of activities in workflows', async () => {
    const messages = await lintProbe('workflows', "import type { AgioActivities } from '../activities';\nexport type A = AgioActivities;\n");
    expect(messages).toEqual([]);
  });

  it('makes a floating promise an error', async () => {
    const messages = await lintProbe('activities', 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n');
    expect(messages.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(true);
  });

  it('lets the same node:fs import pass outside workflow code', async () => {
    const messages = await lintProbe('activities', "import fs from 'node:fs';\nexport const x = fs.existsSync('a');\n");
    expect(messages).toEqual([]);
  });
});
