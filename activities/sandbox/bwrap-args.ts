// The bubblewrap command line of one sandboxed call: new user, pid, ipc, uts, cgroup and (unless allowed) network
// namespaces; a read-only system; the workspace as the only writable path; no environment but what the tool sets.

/** Where the workspace appears inside the sandbox (the working directory and $HOME). */
export const SANDBOX_WORKSPACE = '/workspace';
/** Where the worker's ripgrep appears inside the sandbox. */
export const SANDBOX_RG = '/run/agio/rg';
/** The only environment a sandboxed process sees. */
export const SANDBOX_ENV: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: SANDBOX_WORKSPACE,
  LANG: 'C.UTF-8',
  TERM: 'dumb',
};

/**
 * The parts of /etc programs need (users, name resolution, certificates, Debian's alternatives); the rest stays out.
 */
const ETC_ENTRIES = [
  'passwd',
  'group',
  'hosts',
  'resolv.conf',
  'nsswitch.conf',
  'host.conf',
  'localtime',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'mime.types',
  'bash.bashrc',
  'profile',
  'inputrc',
];

/** Resource limits of one sandboxed call. */
export interface SandboxLimits {
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space in bytes (RLIMIT_AS). */
  memoryBytes: number;
  /** Processes and threads (RLIMIT_NPROC, counted in the sandbox's own user namespace). */
  processes: number;
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes; also the size of the private /tmp. */
  fileSizeBytes: number;
  /** Open files (RLIMIT_NOFILE). */
  openFiles: number;
}

/** Defaults: generous for builds and tests, small enough that one call cannot take the worker's machine. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  cpuSeconds: 600,
  memoryBytes: 4 * 1024 ** 3,
  processes: 256,
  fileSizeBytes: 256 * 1024 ** 2,
  openFiles: 1024,
};

/** What one call's sandbox holds. */
export interface SandboxMount {
  /** Real path of the run's workspace directory on the worker. */
  workspace: string;
  /** Whether the workspace is bound writable (read-only tools get it read-only). */
  writable: boolean;
  /** Share the worker's network (off: a network namespace with only its own loopback). */
  network: boolean;
  /** Host path of ripgrep to bind at SANDBOX_RG, when the worker has one. */
  rg?: string;
  /**
   * For a worker running as root: bwrap (privileged) builds the sandbox without a user namespace and the command drops
   * to this unprivileged uid and gid (setpriv: no capabilities, no new privileges), whose process limit then holds.
   */
  runAs?: number;
  /** The seccomp filter is on fd 3 (`--seccomp 3`). */
  seccomp?: boolean;
}

/** bwrap's arguments up to and including `--`, then the limits wrapper, then `argv`. */
export function bwrapArgs(mount: SandboxMount, limits: SandboxLimits, argv: string[]): string[] {
  const userns = mount.runAs === undefined;
  const args = [
    ...(userns ? ['--unshare-user'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(mount.network ? [] : ['--unshare-net']),
    ...(userns
      ? ['--disable-userns', '--uid', '65534', '--gid', '65534']
      : ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID']),
    ...(mount.seccomp ? ['--seccomp', '3'] : []),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--hostname',
    'agio-sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    ...['bin', 'lib', 'lib32', 'lib64', 'sbin'].flatMap((d) => ['--symlink', `usr/${d}`, `/${d}`]),
    ...ETC_ENTRIES.flatMap((e) => ['--ro-bind-try', `/etc/${e}`, `/etc/${e}`]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(limits.fileSizeBytes),
    '--tmpfs',
    '/tmp',
    ...(mount.rg
      ? ['--perms', '0755', '--dir', '/run', '--perms', '0755', '--dir', '/run/agio', '--ro-bind', mount.rg, SANDBOX_RG]
      : []),
    mount.writable ? '--bind' : '--ro-bind',
    mount.workspace,
    SANDBOX_WORKSPACE,
    '--chdir',
    SANDBOX_WORKSPACE,
    ...Object.entries(SANDBOX_ENV).flatMap(([k, v]) => ['--setenv', k, v]),
    '--',
  ];
  return [...args, ...(userns ? [] : dropTo(mount.runAs!)), ...limitsWrapper(limits), ...argv];
}

/**
 * The prefix that turns a root sandbox's command into an unprivileged one (the sandbox's only root moment is bwrap).
 */
function dropTo(uid: number): string[] {
  return [
    '/usr/bin/setpriv',
    `--reuid=${uid}`,
    `--regid=${uid}`,
    '--clear-groups',
    '--no-new-privs',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
  ];
}

/** `bash -c 'ulimit …; exec "$@"'`: the limits are set inside the sandbox, on the process that becomes the command. */
export function limitsWrapper(limits: SandboxLimits): string[] {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const script =
    `ulimit -t ${limits.cpuSeconds} -v ${kib(limits.memoryBytes)} -u ${limits.processes} ` +
    `-f ${kib(limits.fileSizeBytes)} -n ${limits.openFiles} && exec "$@"`;
  return ['/bin/bash', '-c', script, 'agio-sandbox'];
}
