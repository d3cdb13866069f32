// The seccomp filter every sandboxed process runs under (x86-64): a classic BPF program, built here so no library is
// needed, that refuses the system calls a sandboxed command has no use for and that widen the kernel it can reach —
// kernel modules and kexec, mounts, new namespaces, bpf, perf, io_uring, keyrings, userfaultfd, handles to files.

const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NEW_NAMESPACES = 0x7e020000;
const SYS_CLONE = 56;
const SYS_CLONE3 = 435;

/** x86-64 system call numbers refused with EPERM. */
const REFUSED: Record<string, number> = {
  ioperm: 173,
  iopl: 172,
  syslog: 103,
  vhangup: 153,
  pivot_root: 155,
  acct: 163,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  sethostname: 170,
  setdomainname: 171,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  kexec_load: 246,
  unshare: 272,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  setns: 308,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

/** The names of the system calls the filter refuses (for the docs and tests). */
export const REFUSED_SYSCALLS = Object.keys(REFUSED);

type Insn = [code: number, jt: number, jf: number, k: number];
const LD_ABS = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const JSET = 0x45;
const RET = 0x06;

/**
 * The filter as the bytes of a `struct sock_filter[]` (what `bwrap --seccomp FD` reads), or undefined on an
 * architecture it is not written for (the sandbox then runs without one).
 */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64') return undefined;
  const prog: Insn[] = [
    [LD_ABS, 0, 0, 4], // seccomp_data.arch
    [JEQ, 1, 0, AUDIT_ARCH_X86_64],
    [RET, 0, 0, RET_ERRNO | ENOSYS], // 32-bit system calls (other numbers) are not let through
    [LD_ABS, 0, 0, 0], // seccomp_data.nr
    [JGE, 0, 1, X32_SYSCALL_BIT],
    [RET, 0, 0, RET_ERRNO | ENOSYS],
    // clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone, checked below.
    [JEQ, 0, 1, SYS_CLONE3],
    [RET, 0, 0, RET_ERRNO | ENOSYS],
    ...Object.values(REFUSED).flatMap((nr): Insn[] => [
      [JEQ, 0, 1, nr],
      [RET, 0, 0, RET_ERRNO | EPERM],
    ]),
    [JEQ, 0, 3, SYS_CLONE],
    [LD_ABS, 0, 0, 16], // args[0] (the flags), low 32 bits
    [JSET, 0, 1, CLONE_NEW_NAMESPACES],
    [RET, 0, 0, RET_ERRNO | EPERM],
    [RET, 0, 0, RET_ALLOW],
  ];
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
