// The bash tool in the sandbox: /workspace as cwd and HOME, exit codes, timeouts and aborts that kill everything the
// command started (setsid included), the output cap, and no environment of the worker's.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bashNetworkTool, bashTool } from '../../../activities/tools/bash';
import { Sandbox, SandboxUnavailableError } from '../../../activities/sandbox/sandbox';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';
import { noProcessesWith, processesWith } from '../../helpers/processes';

let t: TestToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(() => t.cleanup());

const bash = (command: string, timeout_ms?: number) => callTool(bashTool, { command, timeout_ms }, t.ctx);
/** A sleep whose command line no other process has. */
const sleeper = () => `${1000 + Math.floor(Math.random() * 1e6)}.5`;

test('runs in the workspace, bound at /workspace, which is also HOME', async () => {
  await fs.writeFile(path.join(t.workspace, 'seed.txt'), 'seeded');
  const out = await bash('pwd; echo "home=$HOME"; cat seed.txt; echo; echo made > made.txt');
  expect(out.content).toBe('/workspace\nhome=/workspace\nseeded\nexit code: 0');
  await expect(fs.readFile(path.join(t.workspace, 'made.txt'), 'utf8')).resolves.toBe('made\n');
});

test('returns stdout and stderr together and reports a non-zero exit code as an error', async () => {
  const out = await bash('echo out; echo err >&2; exit 3');
  expect(out.content).toMatch(/out\n/);
  expect(out.content).toMatch(/err\n/);
  expect(out.content).toMatch(/exit code: 3$/);
  expect(out.isError).toBe(true);
  expect(out.metadata).toMatchObject({ exitCode: 3, timedOut: false });
});

test('a timeout kills every process the command started', async () => {
  const s = sleeper();
  const started = Date.now();
  const out = await bash(`sleep ${s} & sleep ${s}`, 500);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(out.isError).toBe(true);
  expect(out.content).toMatch(/timed out after 500 ms/);
  await expect(noProcessesWith(`sleep ${s}`)).resolves.toBe(true);
});

test('background processes, even in a new session, do not outlive a command that exits normally', async () => {
  const s = sleeper();
  const out = await bash(`setsid sleep ${s} & nohup sleep ${s} >/dev/null 2>&1 & sleep 0.3; echo started`);
  expect(out.content).toBe('started\nexit code: 0');
  await expect(noProcessesWith(`sleep ${s}`)).resolves.toBe(true);
});

test('aborting ctx.signal kills the command', async () => {
  const s = sleeper();
  const running = bash(`sleep ${s} & sleep ${s}`);
  while ((await processesWith(`sleep ${s}`)).length < 2) await new Promise((r) => setTimeout(r, 50));
  t.abort.abort();
  const out = await running;
  expect(out.isError).toBe(true);
  expect(out.content).toMatch(/aborted/);
  await expect(noProcessesWith(`sleep ${s}`)).resolves.toBe(true);
});

test('caps long output, keeping head and tail around a truncation marker', async () => {
  const out = await bash(`echo BEGIN; head -c 100000 /dev/zero | tr '\\0' 'a'; echo; echo END`);
  expect(out.content).toMatch(/^BEGIN\naaa/);
  expect(out.content).toMatch(/\[… \d+ bytes truncated …\]/);
  expect(out.content).toMatch(/aaa\nEND\nexit code: 0$/);
  expect(out.metadata?.truncatedBytes).toBe(100000 + 'BEGIN\n\nEND\n'.length - 32 * 1024);
});

test("the worker's environment is visible neither to the command nor through /proc", async () => {
  process.env.AGIO_SECRET_TEST = 's3cret';
  try {
    const out = await bash('echo "[$AGIO_SECRET_TEST]"; env; cat /proc/*/environ | tr "\\0" "\\n"');
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

test('refuses to run where no sandbox can start', async () => {
  const none = new Sandbox({ kind: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' });
  await expect(callTool(bashTool, { command: 'id' }, { ...t.ctx, sandbox: none })).rejects.toThrow(
    SandboxUnavailableError,
  );
  await expect(callTool(bashTool, { command: 'id' }, { ...t.ctx, sandbox: undefined })).rejects.toThrow(
    /cannot run workspace tools/,
  );
});

test("bash has no network; bash_network shares the worker's (loopback included)", async () => {
  const server = http.createServer((_req, res) => res.end('answered'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const command = `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1`;
    expect((await bash(command)).content).toMatch(/Connection refused/);
    expect((await callTool(bashNetworkTool, { command }, t.ctx)).content).toContain('answered');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('runs under a seccomp filter: no new namespaces, no mounts; ordinary commands and forks work', async () => {
  const out = await bash(
    'unshare -U true; echo "unshare=$?"; mount -t tmpfs x /tmp 2>/dev/null; echo "mount=$?"; ' +
      '(sleep 0.1 & wait) && echo forked; grep "^Seccomp:" /proc/self/status',
  );
  expect(out.content).toMatch(/unshare=1\n/);
  expect(out.content).toMatch(/Operation not permitted/);
  expect(out.content).not.toMatch(/mount=0/);
  expect(out.content).toMatch(/forked\nSeccomp:\s+2\nexit code: 0$/);
});
