// Agio as someone else's dependency: the package packed once (`npm pack`, which builds it), fresh projects that install
// the tarball from npm's cache as a user's `npm install` would, and their processes started as the user starts them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../platform/project-root';
import { waitFor } from './workflow-agents';

const run = promisify(execFile);
const BIG_OUTPUT = 64 * 1024 * 1024;

/** Packs this repository into `dir`; answers the tarball's path. */
export async function packAgio(dir: string): Promise<string> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: projectRoot(),
    maxBuffer: BIG_OUTPUT,
  });
  return path.join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
}

/** The version range of one of this repository's own (dev) dependencies, so a project installs it from the cache. */
export function ourRange(name: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  return pkg.dependencies[name] ?? pkg.devDependencies[name];
}

/**
 * `npm install <tarball>` in `dir` (with what its package.json lists), from npm's cache where it can: the suite's own
 * install has fetched every dependency. Answers npm's warnings (EBADENGINE and the like).
 */
export async function installTarball(dir: string, tarball: string): Promise<string> {
  const { stderr } = await run(
    'npm',
    ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
    { cwd: dir, maxBuffer: BIG_OUTPUT },
  );
  return stderr;
}

/** A process of a project, started as its user would start it. */
export interface ProjectProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then waits until it has exited. */
  stop(): Promise<void>;
}

/** Spawns `command` in `cwd`; resolves once its output contains `until` (rejects if it exits first). */
export async function startProjectProcess(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; until: string | RegExp },
): Promise<ProjectProcess> {
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let gone = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(() => void (gone = true));
  const started = () => (typeof opts.until === 'string' ? out.includes(opts.until) : opts.until.test(out));
  await Promise.race([
    waitFor(`${command} ${args.join(' ')} to print ${String(opts.until)}`, started, 120_000),
    exited.then(() => {
      if (!started()) throw new Error(`${command} ${args.join(' ')} exited before it was ready:\n${out}`);
    }),
  ]);
  return {
    child,
    output: () => out,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
