// `agio serve` owns its data directory: a second serve on it stops at once with an error naming the holder's pid
// (before, it retried the busy dev server with warnings and hung), and a serve started after one was killed with -9
// starts on the same data, where the runs of the killed one still are.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../../devkit/data-dir-lock';
import { DEV_TOKEN_HEADER, curl, startServe, type ServeProcess, curlStartRun } from '../helpers/serve-process';

const H = DEV_TOKEN_HEADER;

describe('agio serve and its data directory', () => {
  jest.setTimeout(240_000);
  let dataDir: string;
  const serves: ServeProcess[] = [];

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-lock-'));
  });
  afterAll(async () => {
    for (const serve of serves) if (serve.child.exitCode === null) serve.child.kill('SIGINT');
    await Promise.all(serves.map((s) => s.exited));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second serve on the same data directory, naming the holder', async () => {
    serves.push(await startServe(dataDir));
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'serve.lock'), 'utf8')) as { pid: number };
    const second = await startServe(dataDir, 0, { until: 'agio:' });
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`another agio serve (pid ${lock.pid}) is using ${dataDir}`);
  });

  it('after kill -9 of serve, a new serve starts on the same data at once and finds the runs of the killed one', async () => {
    const first = serves[0];
    const url = first.url;
    const port = Number(new URL(url).port);
    const started = curlStartRun(url, { agent: 'assistant', input: 'hello' });
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'serve.lock'), 'utf8')) as {
      pid: number;
      children: { pid: number }[];
    };
    expect(lock.pid).toBe(first.child.pid);
    first.child.kill('SIGKILL');
    await first.exited;

    const next = await startServe(dataDir, port);
    serves.push(next);
    // Whatever the killed serve left (its dev server's guard may still be stopping it) is gone before the new one
    // starts.
    for (const child of lock.children) expect(isProcessAlive(child.pid)).toBe(false);
    // The run goes on on the new serve's worker (a model call lost with the killed worker runs again).
    const t0 = Date.now();
    let status: { status: string; output?: { response: string } } = { status: 'running' };
    while (status.status === 'running' && Date.now() - t0 < 120_000) {
      status = JSON.parse(curl(`${url}/runs/${started.runId}`, '-H', H)) as typeof status;
      if (status.status === 'running') await new Promise((r) => setTimeout(r, 500));
    }
    expect(status.status).toBe('completed');
    expect(status.output?.response).toContain('offline demo model');
  });
});
