// Decides once, at worker start, how workspace tools are confined: bubblewrap when it can start here, the operator's
// explicit unsafe switch, or nothing (the tools then refuse with SandboxUnavailableError).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { bwrapArgs, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './bwrap-args';
import { runProcess } from './run-process';
import { seccompFilter } from './seccomp';
import { Sandbox, type SandboxState } from './sandbox';

/** The environment variable that runs workspace tools without a sandbox (trusted agents only). */
export const UNSAFE_NO_SANDBOX_ENV = 'AGIO_UNSAFE_NO_SANDBOX';
/** The first uid of a root worker's sandboxes (default 200000): each call runs as its own uid from there. */
export const SANDBOX_UID_ENV = 'AGIO_SANDBOX_UID';

/** Environment variables that change the sandbox's limits (whole numbers). */
const LIMIT_ENV: Record<string, (n: number) => Partial<SandboxLimits>> = {
  AGIO_SANDBOX_CPU_SECONDS: (n) => ({ cpuSeconds: n }),
  AGIO_SANDBOX_MEMORY_MB: (n) => ({ memoryBytes: n * 1024 ** 2 }),
  AGIO_SANDBOX_PROCESSES: (n) => ({ processes: n }),
  AGIO_SANDBOX_FILE_SIZE_MB: (n) => ({ fileSizeBytes: n * 1024 ** 2 }),
};

/** The limits the environment sets (AGIO_SANDBOX_CPU_SECONDS, _MEMORY_MB, _PROCESSES, _FILE_SIZE_MB). */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<SandboxLimits> {
  const limits: Partial<SandboxLimits> = {};
  for (const [name, set] of Object.entries(LIMIT_ENV)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive whole number, not "${value}"`);
    Object.assign(limits, set(Number(value)));
  }
  return limits;
}

/** Options of {@link detectSandbox}. */
export interface DetectOptions {
  /** A directory the probe binds as the workspace (the worker's workspace root): it must be reachable. */
  workspaceRoot: string;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<SandboxLimits>;
}

/** The first executable named `name` on PATH. */
async function which(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH || '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      await fs.access(file, fs.constants.X_OK);
      return await fs.realpath(file);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Probes bubblewrap once (a `true` in a full sandbox over the workspace root) and returns the worker's sandbox. */
export async function detectSandbox(opts: DetectOptions): Promise<Sandbox> {
  const env = opts.env ?? process.env;
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...limitsFromEnv(env), ...opts.limits };
  const rg = await which('rg', env);
  if (env[UNSAFE_NO_SANDBOX_ENV] === '1') return new Sandbox({ kind: 'unsafe', rg }, limits);
  const bwrap = await which('bwrap', env);
  if (!bwrap) return new Sandbox({ kind: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' }, limits);
  const uidBase = process.getuid?.() === 0 ? Number(env[SANDBOX_UID_ENV] ?? 200_000) : undefined;
  const state: SandboxState = { kind: 'bwrap', bwrap, ...(rg ? { rg } : {}), ...(uidBase ? { uidBase } : {}) };
  const seccomp = seccompFilter();
  const mount = {
    workspace: opts.workspaceRoot,
    writable: false,
    network: false,
    runAs: uidBase,
    seccomp: seccomp !== undefined,
    ...(rg ? { rg } : {}),
  };
  try {
    const probe = await runProcess(bwrap, bwrapArgs(mount, limits, ['/bin/true']), {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      heartbeat: () => undefined,
      outputLimit: 4096,
      spawn: { env: {}, cwd: '/' },
      ...(seccomp ? { fd3: seccomp } : {}),
    });
    if (probe.exitCode !== 0) {
      const why = probe.output.trim() || `exit code ${probe.exitCode ?? probe.signal}`;
      const hint = uidBase
        ? ''
        : '; are user namespaces enabled (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces)?';
      return new Sandbox({ kind: 'unavailable', reason: `bubblewrap cannot start: ${why}${hint}` }, limits);
    }
  } catch (err) {
    return new Sandbox({ kind: 'unavailable', reason: `bubblewrap cannot start: ${(err as Error).message}` }, limits);
  }
  return new Sandbox(state, limits);
}

/** One line for the worker's log saying how workspace tools are confined. */
export function describeSandbox(sandbox: Sandbox): { level: 'info' | 'error'; message: string } {
  const s = sandbox.state;
  if (s.kind === 'bwrap')
    return {
      level: 'info',
      message: `agio worker: workspace tools run in bubblewrap (${s.bwrap}${s.uidBase ? `, each call as its own uid from ${s.uidBase}` : ''}; ripgrep ${s.rg ?? 'missing: grep and glob will fail'})`,
    };
  if (s.kind === 'unsafe')
    return {
      level: 'error',
      message: `agio worker: WARNING ${UNSAFE_NO_SANDBOX_ENV}=1: bash, grep and glob run WITHOUT A SANDBOX, as this worker's user, with its network and filesystem. Any agent (and any prompt injection) can read this worker's secrets and other runs' files.`,
    };
  return {
    level: 'error',
    message: `agio worker: NO SANDBOX: ${s.reason}. bash, grep and glob will refuse to run (install bubblewrap and ripgrep, or set ${UNSAFE_NO_SANDBOX_ENV}=1 where every agent is trusted).`,
  };
}
