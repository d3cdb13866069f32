// Lint rules: type-aware TypeScript checks everywhere; workflow-side code (workflows/, common/) may not import Node
// built-ins, I/O libraries or the folders that do I/O, because the workflow sandbox must stay deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const ioModules = [
  'openai',
  'mongodb',
  'fastify',
  'eventsource',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];
// The folders that do I/O or run outside the sandbox, matched at any depth as barrels ('../activities') and deep paths
// ('../activities/model') alike: a glob such as '../activities/*' lets the barrel through.
const ioFolders = [
  'platform',
  'activities',
  'stores',
  'live',
  'config',
  'telemetry',
  'worker',
  'devkit',
  'client',
  'bridge',
  'cli',
  'protocols',
];
const ioFolderImport = `^(\\./)?(\\.\\./)+(${ioFolders.join('|')})(/.*)?$`;
// The package's root index re-exports the worker, the client and the bridge.
const rootIndexImport = '^(\\./)?\\.\\.(/\\.\\.)*(/index)?/?$';

/**
 * The workflow-side no-restricted-imports rule: no Node built-ins, I/O modules or I/O folders; `extra` patterns too.
 */
const workflowSideImports = (extra = []) => [
  'error',
  {
    paths: [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`), ...ioModules].map((name) => ({
      name,
      message: 'workflow-side code must stay deterministic: no Node built-ins or I/O modules (do I/O in activities/).',
    })),
    patterns: [
      {
        group: ['node:*'],
        message: 'workflow-side code must stay deterministic: no Node built-ins (do I/O in activities/).',
        allowTypeImports: true,
      },
      ...[ioFolderImport, rootIndexImport].map((regex) => ({
        regex,
        message:
          'workflow-side code may import only common/ and workflows/ as values; the other folders do I/O (their types by `import type`).',
        allowTypeImports: true,
      })),
      ...extra,
    ],
  },
];

// The rooms of workflows/, each with the rooms it may import (workflows/README.md). No room imports workflows/index.ts
// (the worker's list of workflow types) or a room not named here, types included.
const workflowRooms = {
  events: [],
  lifecycle: ['events'],
  conversation: ['events'],
  nesting: ['events', 'lifecycle'],
  'agent-loop': ['events', 'lifecycle', 'conversation', 'nesting'],
  composite: ['events', 'lifecycle', 'nesting', 'agent-loop'],
  jobs: [],
};
/** The patterns that keep `room` from the rooms it may not import and from workflows/index.ts. */
const roomsAbove = (room, below) => {
  const others = Object.keys(workflowRooms).filter((r) => r !== room && !below.includes(r));
  return [
    {
      regex: `^\\.\\./(${others.join('|')})(/.*)?$`,
      message: `workflows/${room}/ may import only ${below.length ? below.map((r) => `${r}/`).join(', ') : 'no other room'} (workflows/README.md).`,
    },
    {
      regex: '^\\.\\.(/index)?/?$',
      message: "no room imports workflows/index.ts, the worker's list of workflow types.",
    },
  ];
};

// What activities, stores, the live lane and platform/ may not import: the folders above them (docs/ARCHITECTURE.md,
// "Layers"). activities/model/ may import of the rest of activities/ only the JSON Schema checks, the event publisher
// and the tool registry.
const upperFolders = ['config', 'telemetry', 'client', 'worker', 'protocols', 'bridge', 'devkit', 'cli'];
const layerImports = (extra) => [
  'error',
  {
    patterns: [
      {
        regex: `^(\\./)?(\\.\\./)+(${upperFolders.join('|')})(/.*)?$`,
        message:
          'activities/, stores/, live/ and platform/ may not import the folders above them (docs/ARCHITECTURE.md, "Layers").',
      },
      ...extra,
    ],
  },
];
const modelRoomImport = {
  regex: '^\\.\\.((/index)?/?|/(?!(json-schema|publish|tools/registry)$)[a-z-]+(/.*)?)$',
  message:
    'activities/model/ may import of activities/ only json-schema, publish and tools/registry (activities/README.md).',
};

// The bridge and the protocols (bridge/, protocols/) reach runs only through AgioClient and RunHandle (client/): no
// Temporal SDK, and none of the folders that run workflows or activities or start processes. What they need and the
// client lacks is added to the client. The composition roots (the bridge's main and `agio openapi`) build the client
// the bridge runs over, so they may import Temporal's client, config/ and worker/ (docs/ARCHITECTURE.md, "Layers").
const bridgeMessage =
  'bridge/ and protocols/ reach Temporal and runs through client/ (AgioClient, RunHandle) only, never workflows/, ' +
  'activities/, worker/, devkit/, cli/ or config/: add what they lack to the client.';
/** An import of one of `folders`, at any depth, as a barrel or a deep path. */
const folderImport = (folders) => `^(\\./)?(\\.\\./)+(${folders.join('|')})(/.*)?$`;
/** The no-restricted-imports rule of bridge-side code that may not import `folders`, nor Temporal unless `temporal`. */
const bridgeImports = (folders, { temporal = false } = {}) => [
  'error',
  {
    patterns: [
      { regex: folderImport(folders), message: bridgeMessage },
      ...(temporal ? [] : [{ regex: '^@temporalio/', message: bridgeMessage }]),
    ],
  },
];

export default tseslint.config(
  // bench/peer-openai-agents is its own package (Temporal SDK 1.23, its own node_modules and tsconfig): not linted
  // here. .agio/ is serve's data: run workspaces hold whatever agents wrote there, .ts files included.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tools/**',
      '.agio/**',
      'coverage/**',
      'bench/results/**',
      'bench/peer-openai-agents/**',
      'tests/fixtures/consumer/**',
      '*.js',
      '*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['workflows/**/*.ts', 'common/**/*.ts'], rules: { 'no-restricted-imports': workflowSideImports() } },
  // Each room of workflows/ imports only the rooms below it (workflows/README.md); the rule restates the workflow-side
  // one, since a later block's options replace an earlier block's for the same rule.
  ...Object.entries(workflowRooms).map(([room, below]) => ({
    files: [`workflows/${room}/**/*.ts`],
    rules: { 'no-restricted-imports': workflowSideImports(roomsAbove(room, below)) },
  })),
  // Activities, stores, the live lane and platform/ sit below every process's composition (docs/ARCHITECTURE.md,
  // "Layers"); activities/model/ also keeps to itself within activities/.
  {
    files: ['activities/**/*.ts', 'stores/**/*.ts', 'live/**/*.ts', 'platform/**/*.ts'],
    rules: { 'no-restricted-imports': layerImports([]) },
  },
  { files: ['activities/model/**/*.ts'], rules: { 'no-restricted-imports': layerImports([modelRoomImport]) } },
  // The bridge's edges (see bridgeMessage above); protocols/ sits below bridge/ and may not import it either.
  {
    files: ['bridge/**/*.ts'],
    rules: { 'no-restricted-imports': bridgeImports(['workflows', 'activities', 'worker', 'devkit', 'cli', 'config']) },
  },
  {
    files: ['protocols/**/*.ts'],
    rules: {
      'no-restricted-imports': bridgeImports([
        'workflows',
        'activities',
        'worker',
        'devkit',
        'cli',
        'config',
        'bridge',
      ]),
    },
  },
  // Nor the Temporal client and handles the client keeps for its own use (AgioClient.temporal, RunHandle.workflow).
  {
    files: ['bridge/**/*.ts', 'protocols/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(temporal|workflow)$/]',
          message: `no .temporal or .workflow: ${bridgeMessage}`,
        },
      ],
    },
  },
  {
    files: ['bridge/main.ts', 'bridge/openapi-file.ts'],
    rules: { 'no-restricted-imports': bridgeImports(['workflows', 'activities', 'devkit', 'cli'], { temporal: true }) },
  },
);
