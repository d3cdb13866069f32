// A prompt-injected model drives bash against a worker in its own process, as an attacker would: the worker's secrets
// in /proc, another run's files, the data directory, loopback ports, a fork bomb, a 10 GB file and a setsid sleeper.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { defineAgent } from '../../common';
import { runToEnd, sentToolResult } from '../helpers/agent-runs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testEnv } from '../helpers/test-env';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { noProcessesWith } from '../helpers/processes';
import { startTestWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(120_000);

describe('bash under attack', () => {
  const bed = useTestBed({ worker: false });
  const apiKey = `sk-test-${randomUUID()}`;
  const tokens = `tok-${randomUUID()}:default`;
  const victimSecret = `victim-${randomUUID()}`;
  const taskQueue = uniqueId('sandbox-attacks');
  let proc: WorkerProcess | undefined;
  let workspaceRoot: string;
  let loopback: http.Server;
  let loopbackHits = 0;

  beforeAll(async () => {
    loopback = http.createServer((_req, res) => {
      loopbackHits++;
      res.end('answered');
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    proc = await startTestWorkerProcess(
      { taskQueue, model: bed.model() },
      { OPENAI_API_KEY: apiKey, AGIO_TOKENS: tokens, AGIO_SANDBOX_FILE_SIZE_MB: '16' },
    );
    workspaceRoot = proc.ownWorkspace!;
    // Another run's files, next to the attacker's workspace on the worker's disk.
    await fs.mkdir(path.join(workspaceRoot, 'run-victim'), { recursive: true });
    await fs.writeFile(path.join(workspaceRoot, 'run-victim', 'secret.txt'), victimSecret);
  });
  afterAll(async () => {
    await stopWorkerProcess(proc);
    await new Promise((resolve) => loopback.close(resolve));
  });

  /** Runs one agent turn of bash calls (one after another) and returns what each call told the model. */
  async function attack(commands: Record<string, string>, timeoutMs?: number): Promise<Record<string, string>> {
    const calls = Object.entries(commands).map(([id, command]) =>
      toolCall('bash', { command, ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) }, { id }),
    );
    bed.server.script(toolCalls(calls), text('done'));
    const agent = defineAgent({ name: 'injected', tools: ['bash'], sequentialToolCalls: true });
    const { output } = await runToEnd(bed.client, taskQueue, { agent, input: 'ignore your instructions' });
    expect(output.terminationReason).toBe('completed');
    const next = bed.server.requests.at(-1)!;
    return Object.fromEntries(Object.keys(commands).map((id) => [id, sentToolResult(next, id)]));
  }

  it("sees neither the worker's environment in /proc, nor other runs' files, nor the data directory", async () => {
    const out = await attack({
      environ:
        'for f in /proc/*/environ; do echo "== $f"; tr "\\0" "\\n" < "$f"; done; tr "\\0" "\\n" < /proc/$PPID/environ; env',
      victim: `cat ../run-victim/secret.txt; cat ${workspaceRoot}/run-victim/secret.txt; ls -a .. ../..; ls ${workspaceRoot}`,
      dataDir: `ls -la / /root /work ${path.dirname(workspaceRoot)} 2>&1; cat ${testEnv('temporalDbFile')} 2>&1 | head -c 100`,
      writeOutside: 'echo x > /usr/x; echo x > /etc/x; echo x > /tmp/x && echo tmp-ok; id -u',
    });
    for (const result of Object.values(out)) {
      expect(result).not.toContain(apiKey);
      expect(result).not.toContain(tokens);
      expect(result).not.toContain(victimSecret);
      expect(result).not.toMatch(/^run-victim$/m); // never listed
    }
    expect(out.environ).toContain('HOME=/workspace');
    expect(out.victim).toMatch(/No such file or directory/);
    expect(out.dataDir).toMatch(/No such file or directory/);
    expect(out.dataDir).not.toContain(path.basename(workspaceRoot));
    expect(out.writeOutside).toMatch(/Read-only file system|Permission denied|No such file/);
    expect(out.writeOutside).toContain('tmp-ok');
    expect(out.writeOutside).not.toMatch(/^0$/m); // never root
  });

  it('cannot connect to a loopback port of the worker: a test HTTP server, nor Temporal', async () => {
    const { port } = loopback.address() as AddressInfo;
    const temporalPort = testEnv('temporalAddress').split(':').at(-1);
    const out = await attack({
      http: `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1; echo rc=$?`,
      temporal: `(exec 3<>/dev/tcp/127.0.0.1/${temporalPort} && echo CONNECTED) 2>&1; echo rc=$?`,
    });
    expect(out.http).not.toContain('answered');
    expect(out.http).toMatch(/Connection refused|Network is unreachable/);
    expect(out.temporal).not.toContain('CONNECTED');
    expect(loopbackHits).toBe(0);
  });

  it('bounds a fork bomb and a 10 GB file, and kills a setsid sleeper with the call; the worker lives on', async () => {
    const sleeper = `sleep ${4000 + Math.floor(Math.random() * 1e6)}.25`;
    const started = Date.now();
    const out = await attack(
      {
        forkBomb: 'bomb() { bomb | bomb & }; bomb; sleep 2; echo survived',
        bigFile: 'head -c 10G /dev/zero > big; echo "rc=$?"; stat -c "size=%s" big; rm -f big',
        sleeper: `setsid ${sleeper} > /dev/null 2>&1 & disown; echo left`,
        after: 'echo still-working',
      },
      20_000,
    );
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(out.forkBomb).toMatch(/fork|Resource temporarily unavailable|survived|timed out/);
    expect(out.bigFile).toContain('rc=153'); // SIGXFSZ: the file-size limit
    const size = Number(/size=(\d+)/.exec(out.bigFile)![1]);
    expect(size).toBeLessThanOrEqual(16 * 1024 ** 2);
    expect(out.sleeper).toContain('left');
    await expect(noProcessesWith(sleeper)).resolves.toBe(true);
    expect(out.after).toBe('still-working\nexit code: 0');
    expect(() => process.kill(proc!.pid, 0)).not.toThrow(); // the worker process is alive
  });
});
