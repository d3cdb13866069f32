// The workflow bundle the npm package ships (dist/workflow-bundle.js): a worker started from the installed package
// loads it instead of bundling Agio's workflows with webpack at every start. From the sources there is none, so a
// changed workflow is always bundled afresh.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../platform/project-root';
import { bundleWorkflows } from './workflow-bundle-options';

/** dist/workflow-bundle.js beside the built code (absent when running from the sources). */
export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle.js');

/** The prebuilt bundle's code, if this is the built package and it has one. */
export function prebuiltWorkflowCode(): string | undefined {
  return fs.existsSync(PREBUILT_WORKFLOW_BUNDLE) ? fs.readFileSync(PREBUILT_WORKFLOW_BUNDLE, 'utf8') : undefined;
}

/**
 * Writes the prebuilt bundle from the built workflows (`npm run build`). The build directory's path is left out of
 * it, so the package holds no trace of the machine that built it and one release has one build id wherever it runs.
 */
export async function writePrebuiltBundle(): Promise<string> {
  const code = (await bundleWorkflows()).split(projectRoot()).join('/agio');
  await fs.promises.writeFile(PREBUILT_WORKFLOW_BUNDLE, code);
  return PREBUILT_WORKFLOW_BUNDLE;
}
