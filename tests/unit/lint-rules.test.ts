// The lint rules that keep workflow code deterministic: workflows/ and common/ may not import Node built-ins, I/O
// libraries or the folders that do I/O as values (their types they may), and floating promises are errors everywhere.
// And the bridge's edges: bridge/ and protocols/ reach Temporal through client/ only (no Temporal SDK, not even its
// types), never workflows/, activities/, worker/, devkit/, cli/ or config/; the bridge's main may import config/ and
// worker/.
import { lintAll, typeImport, valueImport, type Probe } from '../helpers/lint';

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
  ['platform', '../platform', '../platform/project-root'],
].flatMap(([folder, barrel, deep]) => [
  { folder, specifier: barrel, filePath: WORKFLOW_FILE },
  { folder, specifier: deep, filePath: COMMON_FILE },
]);

const BRIDGE_FILE = 'bridge/server.ts';
const ROUTE_FILE = 'bridge/routes/health.ts';
const PROTOCOL_FILE = 'protocols/mcp/server.ts';
const BRIDGE_MAIN = 'bridge/main.ts';

/** What bridge-side code may not import at all (value or type): as a barrel from bridge/, deep from its routes. */
const bridgeForbidden = [
  ['Temporal client', '@temporalio/client', '@temporalio/client'],
  ['Temporal common', '@temporalio/common', '@temporalio/common/lib/time'],
  ['workflows', '../workflows', '../../workflows/agent-loop/agent-run'],
  ['activities', '../activities', '../../activities/tools/mcp/config'],
  ['worker', '../worker', '../../worker/create-worker'],
  ['devkit', '../devkit', '../../devkit/free-port'],
  ['cli', '../cli', '../../cli/commands'],
  ['config', '../config', '../../config/env'],
].flatMap(([folder, barrel, deep]) => [
  { folder, specifier: barrel, filePath: BRIDGE_FILE },
  { folder, specifier: deep, filePath: ROUTE_FILE },
]);
/** The same for protocols/, which sits below bridge/ and may not import it either. */
const protocolForbidden = [
  ['Temporal client', '@temporalio/client'],
  ['workflows', '../../workflows'],
  ['activities', '../../activities/model'],
  ['worker', '../../worker/create-worker'],
  ['devkit', '../../devkit'],
  ['cli', '../../cli/commands'],
  ['config', '../../config'],
  ['bridge', '../../bridge/server'],
].map(([folder, specifier]) => ({ folder, specifier, filePath: PROTOCOL_FILE }));
/** The bridge's main composes the client and the stores: these only are still closed to it. */
const mainForbidden = [
  ['workflows', '../workflows'],
  ['activities', '../activities/model'],
  ['devkit', '../devkit'],
  ['cli', '../cli/commands'],
].map(([folder, specifier]) => ({ folder, specifier, filePath: BRIDGE_MAIN }));
/** What bridge-side code may import. */
const bridgeAllowed = [
  { specifier: '../client/agio-client', filePath: BRIDGE_FILE },
  { specifier: '../../common', filePath: ROUTE_FILE },
  { specifier: '../../client/run-handle', filePath: PROTOCOL_FILE },
  { specifier: '@temporalio/client', filePath: BRIDGE_MAIN },
  { specifier: '../config', filePath: BRIDGE_MAIN },
  { specifier: '../worker/agents-file', filePath: BRIDGE_MAIN },
];
const bridgeCases = [...bridgeForbidden, ...protocolForbidden, ...mainForbidden];

/** Linted with the type-aware rules, which need the TypeScript program (most of the lint's time): one probe only. */
const floatingPromise: Probe = {
  filePath: ACTIVITY_FILE,
  code: 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
};

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
  nodeFsInActivity: {
    filePath: ACTIVITY_FILE,
    code: "import fs from 'node:fs';\nexport const x = fs.existsSync('a');\n",
  },
  storesInActivity: { filePath: ACTIVITY_FILE, code: valueImport('../stores') },
  temporalOfClientInRoute: {
    filePath: ROUTE_FILE,
    code: 'declare const agio: { temporal: object };\nexport const x = agio.temporal;\n',
  },
  workflowOfHandleInProtocol: {
    filePath: PROTOCOL_FILE,
    code: 'declare const handle: { workflow: object };\nexport const x = handle.workflow;\n',
  },
};

describe('lint rules', () => {
  jest.setTimeout(120_000);
  let results: {
    named: Record<keyof typeof named, string[]>;
    floatingPromise: string[];
    values: string[][];
    types: string[][];
    bridgeValues: string[][];
    bridgeTypes: string[][];
    bridgeAllowed: string[][];
  };

  beforeAll(() => {
    const keys = Object.keys(named) as (keyof typeof named)[];
    const groups = [
      keys.map((key) => named[key]),
      forbidden.map(({ filePath, specifier }) => ({ filePath, code: valueImport(specifier) })),
      forbidden.map(({ filePath, specifier }) => ({ filePath, code: typeImport(specifier) })),
      bridgeCases.map(({ filePath, specifier }) => ({ filePath, code: valueImport(specifier) })),
      bridgeCases.map(({ filePath, specifier }) => ({ filePath, code: typeImport(specifier) })),
      bridgeAllowed.map(({ filePath, specifier }) => ({ filePath, code: valueImport(specifier) })),
    ];
    // The import rules need no types: linted without the type-aware rules, as lint-layers.test.ts does.
    const messages = lintAll(groups.flat(), { typed: false });
    const [named_, values, types, bridgeValues, bridgeTypes, allowed] = groups.map((group) =>
      messages.splice(0, group.length),
    );
    results = {
      named: Object.fromEntries(keys.map((key, i) => [key, named_[i]])) as Record<keyof typeof named, string[]>,
      values,
      types,
      bridgeValues,
      bridgeTypes,
      bridgeAllowed: allowed,
      floatingPromise: lintAll([floatingPromise])[0],
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
    expect(results.floatingPromise.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(true);
  });

  it('lets the same node:fs and stores imports pass outside workflow code', () => {
    expect(results.named.nodeFsInActivity).toEqual([]);
    expect(results.named.storesInActivity).toEqual([]);
  });

  const bridgeProbes = bridgeCases.map((probe, i) => ({ ...probe, i }));
  const bridgeRefusal = [expect.stringMatching(/^no-restricted-imports: .*reach Temporal and runs through client\//)];

  it.each(bridgeProbes)('forbids a value import of $folder as $specifier in $filePath', ({ i }) => {
    expect(results.bridgeValues[i]).toEqual(bridgeRefusal);
  });

  it.each(bridgeProbes)('forbids a type-only import of $folder as $specifier in $filePath', ({ i }) => {
    expect(results.bridgeTypes[i]).toEqual(bridgeRefusal);
  });

  it.each(bridgeAllowed.map((probe, i) => ({ ...probe, i })))('allows $specifier in $filePath', ({ i }) => {
    expect(results.bridgeAllowed[i]).toEqual([]);
  });

  it("forbids bridge-side code the client's own Temporal client and handles (agio.temporal, handle.workflow)", () => {
    for (const messages of [results.named.temporalOfClientInRoute, results.named.workflowOfHandleInProtocol])
      expect(messages).toEqual([expect.stringMatching(/^no-restricted-syntax: no \.temporal or \.workflow/)]);
  });
});
