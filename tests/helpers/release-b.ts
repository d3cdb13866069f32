// Builds "release B" of the test workflows for the upgrade test: the same workflows with release-b's emitter and run
// context swapped in for the released ones (tests/fixtures/release-b), so B's code differs from A's as a real
// release's would.
import path from 'node:path';
import { NormalModuleReplacementPlugin } from 'webpack';
import { bundleWorkflows } from '../../worker/workflow-bundle-options';

const RELEASE_B = path.resolve(__dirname, '../fixtures/release-b');

/** The code of release B's workflow bundle. */
export async function releaseBBundle(): Promise<{ code: string }> {
  const swap = (name: string) =>
    new NormalModuleReplacementPlugin(new RegExp(`/${name}$`), (resource: { context: string; request: string }) => {
      // Release B's own modules import the released ones they wrap.
      if (!resource.context.startsWith(RELEASE_B)) resource.request = path.join(RELEASE_B, name);
    });
  const code = await bundleWorkflows(require.resolve('../fixtures/test-workflows'), {
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [...(config.plugins ?? []), swap('emitter'), swap('run-context')],
    }),
  });
  if (!/release-b\/emitter/.test(code) || !/release-b\/run-context/.test(code))
    throw new Error("release B's modules were not swapped in");
  return { code };
}
