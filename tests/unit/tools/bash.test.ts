// The bash tool: workspace cwd, exit codes, process-group timeout and abort, output cap, and a scrubbed env.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { bashTool } from '../../../activities/tools/bash';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';

let t: TestToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(() => t.cleanup());

const bash = (command: string, timeout_ms?: number) => callTool(bashTool, { command, timeout_ms }, t.ctx);

/** Whether `pid` is a live (non-zombie) process. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return !/^\d+ \(.*\) Z/.test(stat);
}

async function waitUntilDead(pid: number, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (!(await isAlive(pid))) return true;
  }
  return false;
}

test('runs in the workspace, with HOME set to it', async () => {
  const out = await bash('pwd; echo "home=$HOME"');
  expect(out.content).toBe(`${t.workspace}\nhome=${t.workspace}\nexit code: 0`);
  expect(out.isError).toBe(false);
});

test('returns stdout and stderr together and reports a non-zero exit code as an error', async () => {
  const out = await bash('echo out; echo err >&2; exit 3');
  expect(out.content).toMatch(/out\n/);
  expect(out.content).toMatch(/err\n/);
  expect(out.content).toMatch(/exit code: 3$/);
  expect(out.isError).toBe(true);
  expect(out.metadata).toMatchObject({ exitCode: 3, timedOut: false });
});

test('a timeout kills the whole process group, including a child sleep', async () => {
  const started = Date.now();
  const out = await bash('sleep 30 & echo $! > child.pid; sleep 30', 500);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(out.isError).toBe(true);
  expect(out.content).toMatch(/timed out after 500 ms/);
  expect(out.content).toMatch(/exit code: none \(killed by SIGKILL\)/);
  const childPid = Number(await fs.readFile(path.join(t.workspace, 'child.pid'), 'utf8'));
  expect(childPid).toBeGreaterThan(0);
  await expect(waitUntilDead(childPid)).resolves.toBe(true);
});

test('background processes do not outlive a command that exits normally', async () => {
  const started = Date.now();
  const out = await bash('sleep 30 & echo $! > bg.pid; echo started');
  expect(Date.now() - started).toBeLessThan(5000);
  expect(out.content).toBe('started\nexit code: 0');
  const bgPid = Number(await fs.readFile(path.join(t.workspace, 'bg.pid'), 'utf8'));
  await expect(waitUntilDead(bgPid)).resolves.toBe(true);
});

test('aborting ctx.signal kills the command', async () => {
  const started = Date.now();
  setTimeout(() => t.abort.abort(), 300);
  const out = await bash('sleep 30 & echo $! > child.pid; sleep 30');
  expect(Date.now() - started).toBeLessThan(5000);
  expect(out.isError).toBe(true);
  expect(out.content).toMatch(/aborted/);
  const childPid = Number(await fs.readFile(path.join(t.workspace, 'child.pid'), 'utf8'));
  await expect(waitUntilDead(childPid)).resolves.toBe(true);
});

test('caps long output, keeping head and tail around a truncation marker', async () => {
  const out = await bash(`echo BEGIN; head -c 100000 /dev/zero | tr '\\0' 'a'; echo; echo END`);
  expect(out.content).toMatch(/^BEGIN\naaa/);
  expect(out.content).toMatch(/\[… \d+ bytes truncated …\]/);
  expect(out.content).toMatch(/aaa\nEND\nexit code: 0$/);
  expect(Buffer.byteLength(out.content)).toBeLessThan(33 * 1024);
  expect(out.metadata?.truncatedBytes).toBe(100000 + 'BEGIN\n\nEND\n'.length - 32 * 1024);
});

test("the worker's environment variables are not visible to the command", async () => {
  process.env.AGIO_SECRET_TEST = 's3cret';
  try {
    const out = await bash('echo "[$AGIO_SECRET_TEST]"; env');
    expect(out.content.split('\n')[0]).toBe('[]');
    expect(out.content).not.toContain('s3cret');
    expect(out.content).toContain('TERM=dumb');
  } finally {
    delete process.env.AGIO_SECRET_TEST;
  }
});

test('heartbeats every second while the command runs', async () => {
  await bash('sleep 2.2');
  expect(t.heartbeats()).toBeGreaterThanOrEqual(2);
});
