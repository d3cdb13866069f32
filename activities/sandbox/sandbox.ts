// The sandbox every workspace tool that runs a program goes through (bash, grep, glob): bubblewrap around the call, or,
// where the operator chose it, no sandbox at all. A worker without one refuses those tools (README, "Security").
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  bwrapArgs,
  DEFAULT_SANDBOX_LIMITS,
  SANDBOX_ENV,
  SANDBOX_RG,
  SANDBOX_WORKSPACE,
  type SandboxLimits,
} from './bwrap-args';
import { runProcess, type CommandResult, type ProcessOptions } from './run-process';
import { workspaceTree } from '../workspace/session';
import { seccompFilter } from './seccomp';

/** How this worker runs sandboxed calls. */
export type SandboxState =
  | { kind: 'bwrap'; bwrap: string; rg?: string; uidBase?: number }
  | { kind: 'unsafe'; rg?: string }
  | { kind: 'unavailable'; reason: string };

/** A workspace tool was asked to run where no sandbox can start (and the operator did not switch the sandbox off). */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  constructor(reason: string) {
    super(
      `This worker cannot run workspace tools: no sandbox can start (${reason}). Install bubblewrap and ripgrep ` +
        '(scripts/ensure-deps does), or, only where every agent is trusted, set AGIO_UNSAFE_NO_SANDBOX=1.',
    );
  }
}

/** One call in the sandbox: where it runs, and how its process is watched (see runProcess). */
export interface SandboxCall extends Pick<
  ProcessOptions,
  'timeoutMs' | 'signal' | 'heartbeat' | 'outputLimit' | 'keep' | 'stdoutOnly'
> {
  /** Real path of the run's workspace on the worker. */
  workspace: string;
  writable: boolean;
  /** Share the worker's network (default off). */
  network?: boolean;
}

/** Runs programs over a run's workspace, confined by bubblewrap (or not at all in unsafe mode). */
export class Sandbox {
  constructor(
    readonly state: SandboxState,
    readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
  ) {}

  /** Where a sandboxed program sees the workspace (its working directory). */
  workspaceDir(workspace: string): string {
    return this.state.kind === 'bwrap' ? SANDBOX_WORKSPACE : workspace;
  }

  /** The ripgrep a sandboxed program runs; throws when the worker has none. */
  rg(): string {
    this.check();
    const state = this.state as Exclude<SandboxState, { kind: 'unavailable' }>;
    if (!state.rg) throw new Error('ripgrep (rg) is not installed on this worker: install the Debian package ripgrep.');
    return state.kind === 'bwrap' ? SANDBOX_RG : state.rg;
  }

  /** Throws SandboxUnavailableError when no sandbox can start here. */
  check(): void {
    if (this.state.kind === 'unavailable') throw new SandboxUnavailableError(this.state.reason);
  }

  /** Runs `argv` over the workspace: in bubblewrap with the limits, or (unsafe mode) as a plain child process. */
  async run(argv: string[], call: SandboxCall): Promise<CommandResult & { stderr: string }> {
    this.check();
    const state = this.state as Exclude<SandboxState, { kind: 'unavailable' }>;
    const opts = {
      timeoutMs: call.timeoutMs,
      signal: call.signal,
      heartbeat: call.heartbeat,
      outputLimit: call.outputLimit,
      keep: call.keep,
      stdoutOnly: call.stdoutOnly,
    };
    if (state.kind === 'unsafe') {
      const env = { ...SANDBOX_ENV, PATH: process.env.PATH || SANDBOX_ENV.PATH, HOME: call.workspace };
      return runProcess(argv[0], argv.slice(1), { ...opts, spawn: { cwd: call.workspace, env } });
    }
    // A run's tree (its agent tools' workspaces are inside the root's) shares one uid: a call on the root hands the
    // whole tree over, so a child's call running meanwhile must be the same user.
    const tree = workspaceTree(call.workspace);
    const slot = state.uidBase === undefined ? undefined : this.takeSlot(tree);
    try {
      const runAs = slot === undefined ? undefined : state.uidBase! + slot;
      if (runAs !== undefined) await handOver(call.workspace, runAs);
      const seccomp = seccompFilter();
      const mount = {
        workspace: call.workspace,
        writable: call.writable,
        network: call.network ?? false,
        rg: state.rg,
        seccomp: seccomp !== undefined,
      };
      // bwrap itself gets no environment: its pid 1 in the sandbox is readable there (/proc/1/environ).
      return await runProcess(state.bwrap, bwrapArgs({ ...mount, runAs }, this.limits, argv), {
        ...opts,
        spawn: { env: {}, cwd: '/' },
        ...(seccomp ? { fd3: seccomp } : {}),
      });
    } finally {
      if (slot !== undefined) this.releaseSlot(tree);
    }
  }

  /** Per workspace in use: its slot and how many calls run on it. */
  private readonly inUse = new Map<string, { slot: number; calls: number }>();

  /**
   * A root worker's calls run as a uid (base + slot) per workspace: concurrent calls on one workspace share it (each
   * hands the files to it), and calls on other workspaces never count against its process limit.
   */
  private takeSlot(workspace: string): number {
    const held = this.inUse.get(workspace);
    if (held) {
      held.calls++;
      return held.slot;
    }
    const taken = new Set([...this.inUse.values()].map((h) => h.slot));
    let slot = 0;
    while (taken.has(slot)) slot++;
    this.inUse.set(workspace, { slot, calls: 1 });
    return slot;
  }

  private releaseSlot(workspace: string): void {
    const held = this.inUse.get(workspace);
    if (held && --held.calls === 0) this.inUse.delete(workspace);
  }
}

/**
 * Gives a root worker's workspace to the call's user, so the unprivileged sandbox can write what the worker synced
 * (the worker, as root, still reads and commits everything).
 */
async function handOver(dir: string, uid: number): Promise<void> {
  const gid = uid;
  const visit = async (p: string): Promise<void> => {
    const stat = await fs.lstat(p).catch(() => undefined);
    if (!stat) return;
    if (stat.uid !== uid || stat.gid !== gid) await fs.lchown(p, uid, gid).catch(() => undefined);
    if (!stat.isDirectory()) return;
    const names = await fs.readdir(p).catch(() => [] as string[]);
    for (const name of names) await visit(path.join(p, name));
  };
  await visit(dir);
}
