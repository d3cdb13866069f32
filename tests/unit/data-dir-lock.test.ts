// The data directory lock of `agio serve`, with real processes: a live holder is named in the error; a dead holder's
// recorded servers that still run are stopped and reported; a pid now used by another program is left alone.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, lockDataDir } from '../../devkit/data-dir-lock';

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

describe('lockDataDir', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-lock-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A lock file as a serve with pid `pid` would have left it. */
  const leaveLock = (pid: number, children: { name: string; pid: number; command: string }[]) =>
    fs.writeFileSync(
      path.join(dir, 'serve.lock'),
      JSON.stringify({ pid, startedAt: '2026-11-24T00:00:00.000Z', children }),
    );

  /** A pid no process has (a child that has already exited). */
  async function deadPid(): Promise<number> {
    const child = spawn('true');
    await exited(child);
    return child.pid!;
  }

  it('names a live holder and leaves its lock alone', async () => {
    const holder = spawn('sleep', ['60']);
    children.push(holder);
    leaveLock(holder.pid!, []);
    const err = await lockDataDir(dir, () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toBe(
      `another agio serve (pid ${holder.pid}) is using ${dir}: stop it first, or set AGIO_DATA_DIR to another directory`,
    );
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'serve.lock'), 'utf8'))).toMatchObject({ pid: holder.pid });
  });

  it("stops and reports a dead holder's servers, then takes the lock; release frees it", async () => {
    const leftover = spawn('sleep', ['60']);
    children.push(leftover);
    const dead = await deadPid();
    leaveLock(dead, [{ name: 'Temporal dev server', pid: leftover.pid!, command: 'sleep' }]);
    const said: string[] = [];
    const lock = await lockDataDir(dir, (msg) => said.push(msg));
    await exited(leftover);
    expect(leftover.signalCode).toBe('SIGTERM');
    expect(said).toEqual([
      `agio: a previous serve (pid ${dead}, started 2026-11-24T00:00:00.000Z) was killed and left its Temporal dev server (pid ${leftover.pid}) running; stopping it`,
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'serve.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
      children: [],
    });
    await lock.recordChild('Temporal dev server', 4242, 'temporal');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'serve.lock'), 'utf8')).children).toEqual([
      { name: 'Temporal dev server', pid: 4242, command: 'temporal' },
    ]);
    await lock.release();
    expect(fs.existsSync(path.join(dir, 'serve.lock'))).toBe(false);
  });

  it('leaves alone a recorded pid that now runs another program', async () => {
    const stranger = spawn('sleep', ['60']);
    children.push(stranger);
    leaveLock(await deadPid(), [{ name: 'Temporal dev server', pid: stranger.pid!, command: 'temporal' }]);
    const said: string[] = [];
    await lockDataDir(dir, (msg) => said.push(msg));
    expect(said).toEqual([]);
    expect(stranger.exitCode).toBeNull();
    expect(stranger.signalCode).toBeNull();
  });
});
