// `agio serve` owns its data directory: a lock file names the serve process and the servers it started. A second
// serve gets a clear error naming the holder; a serve that was killed (kill -9 leaves its dev server running, holding
// the SQLite file) is found by the next one, which stops what it left behind and says so, instead of racing it.
import fs from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'serve.lock';
/** A guarded server's guard gives it 10 s after TERM before it KILLs it (supervised-process.ts). */
const STOP_WAIT_MS = 15_000;

/** What the lock file holds. */
interface LockContent {
  pid: number;
  startedAt: string;
  /** Processes this serve started; `command` is what /proc/<pid>/cmdline must contain for the pid still to be it. */
  children: { name: string; pid: number; command: string }[];
}

/** The held lock of a data directory. */
export interface DataDirLock {
  /** Records a process this serve started, so a later serve can stop it if this one is killed. */
  recordChild(name: string, pid: number, command: string): Promise<void>;
  release(): Promise<void>;
}

/** Thrown when another live serve holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `another agio serve (pid ${holderPid}) is using ${dataDir}: stop it first, or set AGIO_DATA_DIR to another directory`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** Takes the data directory's lock; stops and reports the leftovers of a serve that died without releasing it. */
export async function lockDataDir(dataDir: string, log: (msg: string) => void = console.log): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  const content: LockContent = { pid: process.pid, startedAt: new Date().toISOString(), children: [] };
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.promises.writeFile(file, JSON.stringify(content), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const held = readLock(file);
      if (held && held.pid !== process.pid && isProcessAlive(held.pid)) throw new DataDirLockedError(dataDir, held.pid);
      if (held) await stopLeftovers(held, log);
      await fs.promises.rm(file, { force: true });
    }
  }
  const write = () => fs.promises.writeFile(file, JSON.stringify(content));
  return {
    async recordChild(name, pid, command) {
      content.children.push({ name, pid, command });
      await write();
    },
    async release() {
      await fs.promises.rm(file, { force: true });
    },
  };
}

function readLock(file: string): LockContent | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockContent;
  } catch {
    return undefined; // unreadable: a serve killed while writing it; nothing to stop
  }
}

/** Stops the processes a dead serve started, if they still run (and are still what it started). */
async function stopLeftovers(held: LockContent, log: (msg: string) => void): Promise<void> {
  const left = held.children.filter((c) => isProcessAlive(c.pid) && commandOf(c.pid)?.includes(c.command) !== false);
  if (!left.length) return;
  log(
    `agio: a previous serve (pid ${held.pid}, started ${held.startedAt}) was killed and left ${left.map((c) => `its ${c.name} (pid ${c.pid})`).join(', ')} running; stopping ${left.length > 1 ? 'them' : 'it'}`,
  );
  for (const child of left) process.kill(child.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (left.some((c) => isProcessAlive(c.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const child of left) if (isProcessAlive(child.pid)) process.kill(child.pid, 'SIGKILL');
}

/** Whether a process with this pid exists (one of another user answers EPERM: it exists too). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a process, where /proc tells it (Linux); undefined elsewhere. */
function commandOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}
