// The on-demand Temporal dev server: two at once on different ports and files, and nothing left behind.
import { Connection } from '@temporalio/client';
import fs from 'node:fs';
import { isProcessAlive } from '../../devkit/data-dir-lock';
import { startTemporalDevServer } from '../../devkit/temporal-server';

describe('Temporal dev server launcher', () => {
  it('starts two servers in parallel on different ports and SQLite files and stops both without leftovers', async () => {
    const [a, b] = await Promise.all([startTemporalDevServer(), startTemporalDevServer()]);
    try {
      expect(a.address).not.toBe(b.address);
      expect(a.dbFilename).not.toBe(b.dbFilename);
      for (const server of [a, b]) {
        const connection = await Connection.connect({ address: server.address });
        const ns = await connection.workflowService.describeNamespace({ namespace: 'default' });
        expect(ns.namespaceInfo?.name).toBe('default');
        await connection.close();
        expect(fs.existsSync(server.dbFilename)).toBe(true);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(isProcessAlive(a.pid)).toBe(false);
    expect(isProcessAlive(b.pid)).toBe(false);
    // Two servers starting at once on a loaded 2-core machine (the rest of the suite runs beside this file) take time.
  }, 120_000);

  it('stops the server when the process that started it is killed with SIGKILL', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
      const { startTemporalDevServer } = require('./devkit/temporal-server');
      startTemporalDevServer().then((s) => { console.log('READY ' + s.pid); setInterval(() => {}, 1000); });
    `,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /READY (\S+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`launcher exited early with ${code}`)));
    });
    expect(isProcessAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && isProcessAlive(pid)) await new Promise((r) => setTimeout(r, 200));
    expect(isProcessAlive(pid)).toBe(false);
  });
});
