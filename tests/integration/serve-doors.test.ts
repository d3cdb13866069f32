// `agio serve` started as a user starts it, without AGIO_TOKENS: it makes a token of its own (no `dev-token`), shows it
// once, keeps it where only its user reads it, and the `agio` commands find it there; everything it creates (data
// directory, workspaces, files a tool writes, the Temporal database) is its user's alone. And a bridge bound beyond
// loopback does not start without tokens.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from '../../devkit/free-port';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { request } from '../helpers/bridge';
import { startServe, type ServeProcess } from '../helpers/serve-process';
import { readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';

const root = path.resolve(__dirname, '../..');
const AGENTS = `
agents:
  - name: scribe
    instructions: You write notes.
    tools: [file_write]
`;

/** Every path under `dir` (itself included) whose mode lets a group or other users in, with that mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (p: string) => {
    const stat = fs.lstatSync(p);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & 0o077) found.push(`${path.relative(dir, p) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return found;
}

describe('agio serve without AGIO_TOKENS', () => {
  jest.setTimeout(240_000);
  const bed = useTestBed({ worker: false });
  let serve: ServeProcess;
  let dir: string;
  let dataDir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-doors-'));
    dataDir = path.join(dir, 'data');
    fs.writeFileSync(path.join(dir, 'agents.yaml'), AGENTS);
    serve = await startServe(dataDir, 0, {
      args: ['--agents', path.join(dir, 'agents.yaml')],
      env: {
        AGIO_TOKENS: undefined,
        OPENAI_API_KEY: 'test',
        OPENAI_BASE_URL: bed.server.baseURL,
        AGIO_MODEL: 'scripted',
      },
    });
  });

  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes a random token, shows it once with the viewer link, and keeps it in a file only its user reads', async () => {
    expect(serve.token).toMatch(/^agio_[\w-]{32}$/);
    expect(serve.output()).toContain(`/ui/#token=${serve.token}`);
    expect(serve.output().split(serve.token).length - 1).toBe(3); // the bridge line, the viewer link, the curl hint
    const file = path.join(dataDir, 'token');
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(serve.token);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await request(`${serve.url}/agents`, { token: 'dev-token' })).status).toBe(401);
    expect((await request(`${serve.url}/agents`, { token: serve.token })).status).toBe(200);
  });

  it('lets the agio commands use the token file without AGIO_TOKEN', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, AGIO_URL: serve.url, AGIO_DATA_DIR: dataDir };
    delete env.AGIO_TOKEN;
    const agents = execFileSync(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', 'agents'], {
      cwd: root,
      encoding: 'utf8',
      env,
    });
    expect(JSON.parse(agents)).toMatchObject({ agents: [{ name: 'scribe' }] });
    const without = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', 'agents'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...env, AGIO_DATA_DIR: path.join(dir, 'nowhere') },
    });
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('no token: set AGIO_TOKEN');
  });

  it('creates its data directory, workspaces, written files and database for its own user only (0700, 0600)', async () => {
    bed.server.script(
      toolCalls([toolCall('file_write', { path: 'notes/today.txt', content: 'secret plans' }, { id: 'w1' })]),
      text('written'),
    );
    const headers = { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' };
    const started = await fetch(`${serve.url}/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ agent: 'scribe', input: 'write it down' }),
    });
    const { runId } = (await started.json()) as { runId: string };
    await readSse(`${serve.url}/runs/${runId}/events`, { token: serve.token, timeoutMs: 60_000 });
    const written = execFileSync('find', [dataDir, '-name', 'today.txt'], { encoding: 'utf8' }).trim();
    expect(fs.readFileSync(written, 'utf8')).toBe('secret plans');
    expect(openToOthers(dataDir)).toEqual([]);
  });
});

describe('the bridge process without AGIO_TOKENS', () => {
  jest.setTimeout(120_000);
  const bridgeEnv = (more: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: testEnv('temporalAddress'), PORT: '0', ...more };
    for (const key of ['AGIO_TOKENS', 'MONGODB_URI', 'AGIO_NATS_URL', 'AGIO_AGENTS']) delete env[key];
    return env;
  };

  it('on loopback makes a token of its own, shows it once, and keeps tokens out of its request log', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bridge/main.ts'], {
      cwd: root,
      env: bridgeEnv({ HOST: '127.0.0.1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await waitUntil(async () => expect(output).toMatch(/token \(tenant "default"\): agio_/), 'the bridge', 60_000);
      const url = /agio bridge: (http:\/\/\S+)/.exec(output)![1];
      const token = /token \(tenant "default"\): (agio_[\w-]+)/.exec(output)![1];
      expect((await request(`${url}/agents`, { token: 'dev-token' })).status).toBe(401);
      expect((await request(`${url}/agents?token=${token}`, { token })).status).toBe(200);
      await waitUntil(async () => expect(output).toContain('/agents?token=[redacted]'), 'the logged request', 10_000);
      expect(output.split(token).length - 1).toBe(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('does not start bound beyond loopback, and says why', () => {
    const env = bridgeEnv({ HOST: '0.0.0.0' });
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'bridge/main.ts'], {
      cwd: root,
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('AGIO_TOKENS is not set, and the bridge listens on 0.0.0.0');
  });
});
