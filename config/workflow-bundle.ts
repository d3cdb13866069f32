// AGIO_WORKFLOW_BUNDLE: the workflow bundle a worker loads instead of bundling workflows/ at start.
import fs from 'node:fs';
import path from 'node:path';
import type { AgioEnv } from './env';

/**
 * createWorker's `workflowBundle` option from AGIO_WORKFLOW_BUNDLE (nothing when unset). A path that is not a readable
 * file fails the start, naming it: a worker must not quietly bundle other code than the one it was pointed at.
 */
export function workflowBundleFromEnv(env: Pick<AgioEnv, 'AGIO_WORKFLOW_BUNDLE'>): {
  workflowBundle?: { codePath: string };
} {
  if (!env.AGIO_WORKFLOW_BUNDLE) return {};
  const codePath = path.resolve(env.AGIO_WORKFLOW_BUNDLE);
  if (!fs.statSync(codePath, { throwIfNoEntry: false })?.isFile())
    throw new Error(`AGIO_WORKFLOW_BUNDLE: no workflow bundle at ${codePath}`);
  return { workflowBundle: { codePath } };
}
