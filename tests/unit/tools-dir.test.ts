// Where Agio builds its Go binaries: the checkout's own .tools/bin for its scripts and tests, but a per-user cache when
// it runs as an installed package, so `npm ci` does not wipe ~240 MB of binaries and projects share one build.
import path from 'node:path';
import { toolsBinaryPath, toolsDirFor } from '../../devkit/install-binary';
import { TEMPORAL_SERVER } from '../../devkit/temporal-server';

const HOME = '/home/dev';

describe('the tools directory', () => {
  it("is the checkout's .tools/bin, with plain names, when Agio runs from its own repository", () => {
    const tools = toolsDirFor('/work/agio', {}, HOME);
    expect(tools).toEqual({ dir: '/work/agio/.tools/bin', versioned: false });
    expect(toolsBinaryPath(TEMPORAL_SERVER, tools)).toBe('/work/agio/.tools/bin/temporal-server');
  });

  it("is the user's cache, one file per version, when Agio is installed under node_modules", () => {
    const tools = toolsDirFor('/srv/shop/node_modules/agio', {}, HOME);
    expect(tools).toEqual({ dir: '/home/dev/.cache/agio/bin', versioned: true });
    expect(toolsBinaryPath(TEMPORAL_SERVER, tools)).toBe(
      `/home/dev/.cache/agio/bin/temporal-server-${TEMPORAL_SERVER.version}`,
    );
    // A scoped or nested install is under node_modules too.
    expect(toolsDirFor('/srv/shop/node_modules/.pnpm/agio@1.0.0/node_modules/agio', {}, HOME).dir).toBe(
      '/home/dev/.cache/agio/bin',
    );
  });

  it('follows XDG_CACHE_HOME when it is an absolute path, and ignores a relative one', () => {
    const root = '/srv/shop/node_modules/agio';
    expect(toolsDirFor(root, { XDG_CACHE_HOME: '/var/cache/dev' }, HOME).dir).toBe('/var/cache/dev/agio/bin');
    expect(toolsDirFor(root, { XDG_CACHE_HOME: 'cache' }, HOME).dir).toBe('/home/dev/.cache/agio/bin');
  });

  it('is AGIO_TOOLS_DIR when set, for an installed package and a checkout alike', () => {
    for (const root of ['/srv/shop/node_modules/agio', '/work/agio'])
      expect(toolsDirFor(root, { AGIO_TOOLS_DIR: 'ci-cache/bin' }, HOME)).toEqual({
        dir: path.resolve('ci-cache/bin'),
        versioned: true,
      });
  });
});
