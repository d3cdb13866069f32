// A prebuilt workflow bundle for the test suite and the benchmarks: built once, with the bundler's chatter hidden,
// and written to a file that every worker of the run loads instead of bundling again.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflows } from '../worker/workflow-bundle-options';

/** Bundles the workflows of `workflowsPath` into `dir/file`; returns that path. */
export async function writeWorkflowBundle(
  workflowsPath: string,
  dir: string,
  file = 'workflow-bundle.js',
): Promise<string> {
  const code = await bundleWorkflows(workflowsPath);
  const bundlePath = path.join(dir, file);
  await fs.promises.writeFile(bundlePath, code);
  return bundlePath;
}
