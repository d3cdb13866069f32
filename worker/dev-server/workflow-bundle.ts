// A prebuilt workflow bundle for the test suite and the benchmarks: built once, with the bundler's chatter hidden,
// and written to a file that every worker of the run loads instead of bundling again.
import { bundleWorkflowCode } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { workflowBundlerOptions } from '../workflow-bundle-options';

/** Only the bundler's warnings and errors reach the console. */
const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (msg: string) => console.warn(msg),
  error: (msg: string) => console.error(msg),
};

/** Bundles the workflows of `workflowsPath` into `dir/workflow-bundle.js`; returns that path. */
export async function writeWorkflowBundle(workflowsPath: string, dir: string): Promise<string> {
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: quietLogger, ...workflowBundlerOptions });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await fs.promises.writeFile(bundlePath, bundle.code);
  return bundlePath;
}
