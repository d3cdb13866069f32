// Finds a Go-built server binary (env var, PATH, the tools directory) and builds it with Go when missing. The tools
// directory is this repository's `.tools/bin` when Agio runs from its own checkout, and a per-user cache when it runs
// as an installed package (so `npm ci` does not wipe, and every project does not rebuild, ~240 MB of binaries).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../platform/project-root';
import { isProcessAlive } from './data-dir-lock';

const run = promisify(execFile);

/** Where Agio keeps the binaries it builds, and whether their file names carry the version. */
export interface ToolsDir {
  dir: string;
  /**
   * `<name>-<version>` (a cache shared by every project of the user, which may pin different versions) rather than
   * plain `<name>` (the repository's own `.tools/bin`, one checkout, one version).
   */
  versioned: boolean;
}

/**
 * The tools directory for Agio's package at `root`: AGIO_TOOLS_DIR when set; else, for a package installed under a
 * `node_modules` directory, the user's cache (`$XDG_CACHE_HOME/agio/bin`, default `~/.cache/agio/bin`); else the
 * checkout's own `.tools/bin` (its scripts and tests).
 */
export function toolsDirFor(root: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): ToolsDir {
  if (env.AGIO_TOOLS_DIR) return { dir: path.resolve(env.AGIO_TOOLS_DIR), versioned: true };
  if (!root.split(path.sep).includes('node_modules'))
    return { dir: path.join(root, '.tools', 'bin'), versioned: false };
  const cache =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
  return { dir: path.join(cache, 'agio', 'bin'), versioned: true };
}

/** This process's tools directory. */
export function toolsDir(): ToolsDir {
  return toolsDirFor(projectRoot());
}

/** Where the binary of `spec` is (or would be built) in the tools directory. */
export function toolsBinaryPath(spec: Pick<BinarySpec, 'name' | 'version'>, tools: ToolsDir = toolsDir()): string {
  return path.join(tools.dir, tools.versioned ? `${spec.name}-${spec.version}` : spec.name);
}

/** How to find and, failing that, build one binary. */
export interface BinarySpec {
  /** Executable name, e.g. `temporal`. */
  name: string;
  /** Environment variable that may hold an explicit path, e.g. `TEMPORAL_CLI_PATH`. */
  envVar: string;
  /** Go module path and version of the module that provides the command. */
  goModule: string;
  version: string;
  /** Package path of the command inside the module. */
  goPackage: string;
  /** Adds what the module zip lacks before building (e.g. generated version files). */
  prepare?: (sourceDir: string) => Promise<void>;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * The Go command: AGIO_GO when set (a path that does not exist: no Go), else `go` on PATH, else /usr/local/go/bin/go.
 */
export function findGo(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AGIO_GO) return fs.existsSync(env.AGIO_GO) ? env.AGIO_GO : undefined;
  return onPath('go') ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/** Returns an existing binary: `$envVar`, then PATH, then the tools directory's; undefined when none. */
export function findBinary(spec: BinarySpec): string | undefined {
  const explicit = process.env[spec.envVar];
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`${spec.envVar}=${explicit} does not exist`);
    return explicit;
  }
  const local = toolsBinaryPath(spec);
  return onPath(spec.name) ?? (fs.existsSync(local) ? local : undefined);
}

/** Finds the binary or builds it into the tools directory with Go; undefined when Go is not installed. */
export async function findOrInstallBinary(
  spec: BinarySpec,
  log: (msg: string) => void = console.error,
): Promise<string | undefined> {
  const found = findBinary(spec);
  if (found) return found;
  const go = findGo();
  if (!go) return undefined;
  return withInstallLock(async () => {
    const tools = toolsDir();
    const target = toolsBinaryPath(spec, tools);
    if (fs.existsSync(target)) return target; // another process built it while we waited
    const once = tools.versioned ? 'once for every project of this user' : 'first run only';
    log(`agio: building ${spec.name} ${spec.version} into ${target} with Go (${once}; takes a few minutes)…`);
    await goInstall(go, spec, target);
    if (!fs.existsSync(target)) throw new Error(`go install did not produce ${target}`);
    return target;
  });
}

/**
 * Builds the command from the exact module version on the Go module proxy: `go mod download` fetches it,
 * a writable copy gets the files the module zip leaves out (`prepare`), and `go build` runs in that copy.
 * This is `go install module/cmd@version` in effect, without its listing of every version of the module
 * (some proxies refuse that), and with the copy as the main module so version checks behave as upstream.
 */
async function goInstall(go: string, spec: BinarySpec, target: string): Promise<void> {
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), `agio-build-${spec.name}-`));
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local' };
  const opts = { cwd: work, env, maxBuffer: 64 * 1024 * 1024, timeout: 30 * 60_000 };
  // Built beside the target and renamed into place, so no process ever runs a half-written binary.
  const partial = `${target}.partial-${process.pid}`;
  try {
    const { stdout } = await run(go, ['mod', 'download', '-json', `${spec.goModule}@${spec.version}`], opts);
    const src = path.join(work, 'src');
    await fs.promises.cp(JSON.parse(stdout).Dir as string, src, { recursive: true });
    await run('chmod', ['-R', 'u+w', src], opts);
    await spec.prepare?.(src);
    const pkg = `./${path.posix.relative(spec.goModule, spec.goPackage)}`;
    await run(go, ['build', '-trimpath', '-o', partial, pkg], { ...opts, cwd: src });
    await fs.promises.rename(partial, target);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`building ${spec.name} ${spec.version} with go failed: ${e.stderr?.slice(-2000) || e.message}`);
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
    await fs.promises.rm(partial, { force: true });
  }
}

/**
 * Serialises installs across processes (parallel test runs) with a lock directory holding its owner's pid. A lock
 * whose owner is gone (a process killed mid-build) is taken over at once; one without a pid, after 40 minutes.
 */
export async function withInstallLock<T>(
  fn: () => Promise<T>,
  lock = path.join(toolsDir().dir, '.install.lock'),
): Promise<T> {
  await fs.promises.mkdir(path.dirname(lock), { recursive: true });
  const owner = path.join(lock, 'pid');
  const deadline = Date.now() + 40 * 60_000;
  for (;;) {
    try {
      await fs.promises.mkdir(lock);
      await fs.promises.writeFile(owner, String(process.pid));
      break;
    } catch {
      const pid = Number(await fs.promises.readFile(owner, 'utf8').catch(() => ''));
      const age =
        Date.now() -
        (await fs.promises
          .stat(lock)
          .then((s) => s.mtimeMs)
          .catch(() => Date.now()));
      if ((pid > 0 && !isProcessAlive(pid)) || age > 40 * 60_000)
        await fs.promises.rm(lock, { recursive: true, force: true }); // left by a killed process
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.promises.rm(lock, { recursive: true, force: true });
  }
}
