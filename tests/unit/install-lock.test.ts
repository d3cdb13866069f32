// The install lock that serialises Go builds across processes: a lock left by a killed process (its owner's pid is
// gone) is taken over at once, while a live owner's lock is waited for.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withInstallLock } from '../../devkit/install-binary';

describe('withInstallLock', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-lock-'));
  });
  afterEach(() => fs.promises.rm(dir, { recursive: true, force: true }));

  it('takes over at once a lock whose owner has died, and removes its own lock when done', async () => {
    const lock = path.join(dir, 'install.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await fs.promises.mkdir(lock);
    await fs.promises.writeFile(path.join(lock, 'pid'), dead);
    const started = Date.now();
    expect(await withInstallLock(async () => fs.promises.readFile(path.join(lock, 'pid'), 'utf8'), lock)).toBe(
      String(process.pid),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('waits while the owner of the lock is alive', async () => {
    const lock = path.join(dir, 'install.lock');
    await fs.promises.mkdir(lock);
    await fs.promises.writeFile(path.join(lock, 'pid'), String(process.ppid));
    let ran = false;
    const waiting = withInstallLock(async () => {
      ran = true;
    }, lock);
    await new Promise((r) => setTimeout(r, 2500));
    expect(ran).toBe(false);
    await fs.promises.rm(lock, { recursive: true });
    await waiting;
    expect(ran).toBe(true);
  });
});
