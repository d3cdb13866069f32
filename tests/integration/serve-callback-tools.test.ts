// `agio serve --agents FILE` with a callback tool of the file, as a user runs it: the file's HTTP request starts the
// work at a real receiver with a callback URL on serve's own bridge, signed with the secret serve keeps in its data
// directory (0600; the next serve on that directory signs with it too); the result sent there reaches the model.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { sentToolResult } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { requestsOf } from '../helpers/nested-runs';
import { DEV_TOKEN, startServe, type ServeProcess } from '../helpers/serve-process';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const started: { callback?: string; job?: string }[] = [];
const receiver = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8').on('data', (d: string) => (raw += d));
  req.on('end', () => {
    started.push(JSON.parse(raw || '{}'));
    res.writeHead(202).end();
  });
});

const AGENTS = (port: number) => `
agents:
  - name: builder
    instructions: ROLE-builder
    tools: [build]
callbackTools:
  - name: build
    description: Builds a job elsewhere; the result comes back when it is done.
    waitTimeoutMs: 600000
    parameters: { type: object, properties: { job: { type: string } }, required: [job] }
    start:
      url: http://127.0.0.1:${port}/builds
      body: { job: '{{args.job}}', callback: '{{callback.url}}' }
`;

describe('agio serve with callback tools from its agents file', () => {
  jest.setTimeout(240_000);
  const bed = useTestBed({ worker: false });
  let serve: ServeProcess;
  let dir: string;
  const start = (): Promise<ServeProcess> =>
    startServe(path.join(dir, 'data'), 0, {
      args: ['--agents', path.join(dir, 'agents.yaml')],
      env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: bed.server.baseURL, AGIO_MODEL: 'scripted' },
    });
  const stop = async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-callbacks-'));
    fs.writeFileSync(path.join(dir, 'agents.yaml'), AGENTS((receiver.address() as AddressInfo).port));
    serve = await start();
  });

  afterAll(async () => {
    await stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts the work with a URL on its own bridge, signed with the secret kept in its data directory, and takes the result', async () => {
    bed.server.scriptFor(
      'ROLE-builder',
      toolCalls([toolCall('build', { job: 'release-7' }, { id: 'call_build' })]),
      text('release-7 built'),
    );
    const res = await request(`${serve.url}/runs`, { token: DEV_TOKEN, body: { agent: 'builder', input: 'build' } });
    expect(res.status).toBe(201);
    const runId = res.body.runId as string;
    await waitFor('the build started', () => started.length === 1);
    const callback = new URL(started[0].callback!);
    expect(started[0].job).toBe('release-7');
    expect(callback.origin).toBe(new URL(serve.url).origin);
    expect(fs.statSync(path.join(dir, 'data', 'callback-secret')).mode & 0o777).toBe(0o600);

    const url = started[0].callback!;
    expect(await request(url, { body: { result: 'built in 3 min' } })).toEqual({
      status: 200,
      body: { completed: true },
    });
    const events = agioEvents(
      (await readSse(`${serve.url}/runs/${runId}/events`, { token: DEV_TOKEN, timeoutMs: 60_000 })).events,
    );
    expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
    expect(events.some((e) => e.type === 'TOOL_CALLBACK_WAITING')).toBe(true);
    expect(sentToolResult(requestsOf(bed.server, 'ROLE-builder')[1], 'call_build')).toBe('built in 3 min');
    // The run has ended: whatever waited there is over.
    expect((await request(url, { body: { result: 'again' } })).status).toBe(410);
  });
});
