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

// The bridge and the protocols (bridge/, protocols/) reach runs only through AgioClient and RunHandle (client/): no
// Temporal SDK, and none of the folders that run workflows or activities or start processes. What they need and the
// client lacks is added to the client. The composition roots (the bridge's main and `agio openapi`) build the client
// the bridge runs over, so they may import Temporal's client, config/ and worker/ (docs/ARCHITECTURE.md, "Layers").
const bridgeMessage =
  'bridge/ and protocols/ reach Temporal and runs through client/ (AgioClient, RunHandle) only, never workflows/, ' +
  'activities/, worker/, devkit/, cli/ or config/: add what they lack to the client.';
// Modules the bridge still imports from a folder it may not, until they move to one it may (issue 36): delete a line
// when its module moves.
const notYetMoved = [
  'worker/project-root',
  'activities/callbacks/callback-tokens',
  'activities/webhooks/address-policy',
];
/** An import of one of `folders` (any depth, barrel or deep), other than the modules of {@link notYetMoved}. */
const folderImport = (folders) => `^(\\./)?(\\.\\./)+(?!(${notYetMoved.join('|')})$)(${folders.join('|')})(/.*)?$`;
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
  // bench/peer-openai-agents is its own package (Temporal SDK 1.23, its own node_modules and tsconfig): not linted here.
  // .agio/ is serve's data: run workspaces hold whatever agents wrote there, .ts files included.
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
  {
    files: ['workflows/**/*.ts', 'common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`), ...ioModules].map((name) => ({
            name,
            message:
              'workflow-side code must stay deterministic: no Node built-ins or I/O modules (do I/O in activities/).',
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
          ],
        },
      ],
    },
  },
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
