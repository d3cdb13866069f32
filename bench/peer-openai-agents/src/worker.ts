// The peer's worker process (`node --import tsx src/worker.ts` in bench/peer-openai-agents, config in
// PEER_CONFIG): a Temporal 1.23.0 Worker with @temporalio/openai-agents' OpenAIAgentsPlugin on the peer task
// queue, whose model provider speaks Chat Completions to the bench's scripted model server. Prints
// `READY <json>` (with the versions and paths of the Temporal packages it loaded) once polling; SIGTERM stops it.
import { OpenAIProvider } from '@openai/agents-openai';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import OpenAI from 'openai';
import fs from 'node:fs';
import path from 'node:path';
import { benchEcho } from './activities';
import { PEER_CONFIG_ENV, type PeerConfig, type PeerReadyInfo } from './protocol';

const PACKAGE_ROOT = path.resolve(__dirname, '..');
/** The packages whose origin is checked, each with a module it exports (to resolve it by). */
const CHECKED_PACKAGES: Record<string, string> = {
  '@temporalio/worker': '@temporalio/worker',
  '@temporalio/workflow': '@temporalio/workflow',
  '@temporalio/client': '@temporalio/client',
  '@temporalio/common': '@temporalio/common',
  '@temporalio/activity': '@temporalio/activity',
  '@temporalio/openai-agents': '@temporalio/openai-agents',
  '@temporalio/workflow-streams': '@temporalio/workflow-streams/client',
  '@openai/agents-core': '@openai/agents-core',
  '@openai/agents-openai': '@openai/agents-openai',
  openai: 'openai',
};

/** The package.json of the installed package `name` (some packages do not export theirs). */
function manifestOf(name: string): string {
  for (
    let dir = path.dirname(require.resolve(CHECKED_PACKAGES[name]));
    dir !== path.dirname(dir);
    dir = path.dirname(dir)
  ) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === name)
      return manifest;
  }
  throw new Error(`no package.json found for ${name}`);
}

/** Where each package was loaded from; throws if one came from outside this package (e.g. the root's 1.24.0). */
function loadedPackages(): Pick<PeerReadyInfo, 'versions' | 'resolved'> {
  const versions: Record<string, string> = {};
  const resolved: Record<string, string> = {};
  for (const name of Object.keys(CHECKED_PACKAGES)) {
    const manifest = manifestOf(name);
    if (!manifest.startsWith(path.join(PACKAGE_ROOT, 'node_modules') + path.sep))
      throw new Error(`${name} resolved outside ${PACKAGE_ROOT}: ${manifest}`);
    versions[name] = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
    resolved[name] = path.dirname(manifest);
  }
  return { versions, resolved };
}

/**
 * Bundles dynamic `import()`s into the one workflow bundle. Our TypeScript workflow file reaches the bundler as
 * ESM, so webpack picks @openai/agents-core's `.mjs` build, whose sandbox memory module has `await import()`:
 * webpack would split that into a chunk the workflow sandbox cannot load ("Automatic publicPath is not supported").
 */
const inlineDynamicImports: NonNullable<NonNullable<WorkerOptions['bundlerOptions']>['webpackConfigHook']> = (
  config,
) => {
  return {
    ...config,
    module: {
      ...config.module,
      parser: {
        ...config.module?.parser,
        javascript: { ...config.module?.parser?.javascript, dynamicImportMode: 'eager' },
      },
    },
  };
};

async function main(): Promise<void> {
  const raw = process.env[PEER_CONFIG_ENV];
  if (!raw) throw new Error(`${PEER_CONFIG_ENV} is not set`);
  const config = JSON.parse(raw) as PeerConfig;
  const loaded = loadedPackages();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: config.address });
  const openAIClient = new OpenAI({ baseURL: config.modelBaseURL, apiKey: 'bench', maxRetries: 0 });
  const plugin = new OpenAIAgentsPlugin({ modelProvider: new OpenAIProvider({ openAIClient, useResponses: false }) });
  const worker = await Worker.create({
    connection,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: { bench_echo: benchEcho },
    plugins: [plugin],
    bundlerOptions: { webpackConfigHook: inlineDynamicImports },
    shutdownGraceTime: '2s',
  });
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const running = worker.run();
  const info: PeerReadyInfo = { pid: process.pid, ...loaded };
  console.log(`READY ${JSON.stringify(info)}`);
  await running;
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
