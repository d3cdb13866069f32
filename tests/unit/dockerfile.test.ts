// Static checks of the Dockerfile and .dockerignore: nothing here runs Docker; it checks that they agree with the
// repository and its build, so a rename or a missing directory fails here rather than at `docker build`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  repoRoot,
  readRepoFile,
  sourceOf,
  nodeEntry,
  dockerfile,
  finalStage,
  stageNames,
  copyArgs,
  copies,
  contextCopies,
} from '../helpers/container-files';

describe('Dockerfile', () => {
  it('builds in a separate stage from the node:20-bookworm-slim runtime', () => {
    const froms = dockerfile.filter((i) => i.keyword === 'FROM').map((i) => i.args.split(/\s+/)[0]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const image of froms) expect(image).toBe('node:20-bookworm-slim');
  });

  it('installs only production dependencies in the runtime stage', () => {
    const runtimeRuns = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'RUN').map((i) => i.args);
    expect(runtimeRuns.some((run) => /\bnpm ci\b.*--omit=dev/.test(run))).toBe(true);
    expect(runtimeRuns.some((run) => /\bnpm run build\b/.test(run))).toBe(false);
  });

  it('copies the compiled dist/ from the build stage into the runtime stage', () => {
    const fromBuild = copies
      .filter((i) => i.stage === finalStage)
      .map(copyArgs)
      .filter(({ flags }) => flags.some((f) => f.startsWith('--from=')));
    expect(fromBuild.length).toBeGreaterThan(0);
    for (const { flags } of fromBuild) {
      const source = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      expect(stageNames.slice(0, finalStage)).toContain(source);
    }
    expect(fromBuild.some(({ sources }) => sources.some((s) => /(^|\/)dist\/?$/.test(s)))).toBe(true);
  });

  it('runs as a non-root user', () => {
    const users = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
  });

  it('starts the worker by default, from an entry point compiled from a source in the repo', () => {
    const cmds = dockerfile.filter((i) => i.stage === finalStage && i.keyword === 'CMD');
    expect(cmds.length).toBeGreaterThan(0);
    const cmd = JSON.parse(cmds[cmds.length - 1].args) as string[];
    expect(cmd).toEqual(['node', 'dist/worker/main.js']);
    const source = sourceOf(nodeEntry(cmd));
    expect({ source, exists: existsSync(path.join(repoRoot, source)) }).toEqual({ source, exists: true });
  });

  it('documents the connection settings with ENV defaults', () => {
    const env = dockerfile
      .filter((i) => i.stage === finalStage && i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bTEMPORAL_ADDRESS=\S+/);
    expect(env).toMatch(/\bTEMPORAL_NAMESPACE=default\b/);
    expect(env).toMatch(/\bAGIO_TASK_QUEUE=agio\b/);
    expect(env).toMatch(/\bPORT=8080\b/);
  });

  it('copies only files and directories that exist in the build context', () => {
    const sources = contextCopies.flatMap((i) => copyArgs(i).sources);
    expect(sources).toEqual(
      expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']),
    );
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(repoRoot, source)) }).toEqual({ source, exists: true });
    }
  });

  it('copies every source directory that tsconfig.build.json compiles into the build stage', () => {
    const buildConfig = JSON.parse(readRepoFile('tsconfig.build.json')) as { include: string[] };
    const buildStageSources = contextCopies.filter((i) => i.stage < finalStage).flatMap((i) => copyArgs(i).sources);
    for (const included of buildConfig.include) {
      expect({
        included,
        copied: buildStageSources.some((s) => s === '.' || path.normalize(s) === path.normalize(included)),
      }).toEqual({
        included,
        copied: true,
      });
    }
  });

  it("copies the viewer's sources into the build stage (npm run build builds dist/ui)", () => {
    const buildStageSources = contextCopies.filter((i) => i.stage < finalStage).flatMap((i) => copyArgs(i).sources);
    expect(buildStageSources).toContain('ui');
  });
});

describe('.dockerignore', () => {
  it('keeps host build output, dependencies and local state out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.replace(/^\/|\/$/g, ''));
    expect(ignored).toEqual(
      expect.arrayContaining(['node_modules', 'dist', '.tools', '.agio', '.git', 'coverage', 'bench/results']),
    );
  });
});
