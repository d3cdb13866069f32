// Build ids come from the workflow code alone: the same release bundled in two checkouts is one version, and any
// change of the code is another.
import { buildIdOf } from '../../worker/versioning';

const bundle = (root: string, body: string) =>
  `var modules = { "${root}/workflows/index.ts": function () { ${body} } };\nrequire("${root}/node_modules/@temporalio/workflow/lib/index.js");\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ sources: [`${root}/workflows/index.ts`] })).toString('base64')}`;

describe('buildIdOf', () => {
  it('is the same for the same code bundled under two checkout paths (module paths and source map differ)', () => {
    expect(buildIdOf(bundle('/home/a/agio', 'return 1;'), '/home/a/agio')).toBe(
      buildIdOf(bundle('/app', 'return 1;'), '/app'),
    );
  });

  it('changes with the code', () => {
    expect(buildIdOf(bundle('/app', 'return 1;'), '/app')).not.toBe(buildIdOf(bundle('/app', 'return 2;'), '/app'));
    expect(buildIdOf(bundle('/app', 'return 1;'), '/app')).toMatch(/^wf-[0-9a-f]{12}$/);
  });
});
