// How Agio's workflow code is bundled: which modules every workflow execution shares.
import path from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';

/**
 * Modules the worker's reusable V8 context evaluates once and shares with every workflow execution, instead of once
 * per execution: zod's, through workflows/shared-schemas.ts. In B5 (5-step runs) that cut the worker's CPU per step
 * from 16.2 to 13.0 ms and raised throughput from 62 to 75 steps/s.
 *
 * Agio's own schemas (common/) are not shared. The SDK deep-freezes shared modules, and zod 4 writes onto a schema
 * the first time it is used (bound methods, derived internals, the memoizer's wrapper), so a frozen schema fails its
 * first parse. Building them per workflow is the cheaper part of the cost.
 */
export const WORKFLOW_PRELOAD_MODULES: string[] = [path.resolve(__dirname, '../workflows/shared-schemas')];

/** Bundler options for every worker and prebuilt bundle Agio makes. */
const workflowBundlerOptions: Pick<BundleOptions, 'preloadModules'> = {
  preloadModules: WORKFLOW_PRELOAD_MODULES,
};

/** The bundler's progress stays quiet; its warnings and errors still show. */
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (msg: string) => console.warn(msg),
  error: (msg: string) => console.error(msg),
};

/** Agio's own workflows: the worker's workflows module. */
export const AGIO_WORKFLOWS = require.resolve('../workflows');

/**
 * The one way Agio bundles workflow code (workers, the replay check, the test suite's prebuilt bundle): the shared
 * modules above, the bundler's chatter hidden; `extra` adds options (a test's webpack hook). Returns the bundle's code.
 */
export async function bundleWorkflows(
  workflowsPath: string = AGIO_WORKFLOWS,
  extra: Partial<BundleOptions> = {},
): Promise<string> {
  return (await bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions, logger: quietBundlerLogger, ...extra }))
    .code;
}
