// `agio serve` with AGIO_CODEC_KEYS, as a user starts it: a run's prompt is nowhere in the raw history its Temporal
// server keeps, the bridge still answers the run, and the codec endpoint decodes its input for an admin token.
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from '../helpers/bridge';
import { startServe, type ServeProcess } from '../helpers/serve-process';
import { waitFor } from '../helpers/workflow-agents';

const PROMPT = 'serve-marker-2c6d: my passport number is X1234567';

describe('agio serve with the payload codec', () => {
  jest.setTimeout(240_000);
  let serve: ServeProcess;
  let dataDir: string;
  let connection: Connection | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-codec-'));
    serve = await startServe(dataDir, 0, {
      env: {
        AGIO_CODEC_KEYS: `serve-key:${randomBytes(32).toString('base64')}`,
        AGIO_TOKENS: 'dev-token:default,ops-token:default:ops:read+admin',
      },
    });
  });

  afterAll(async () => {
    await connection?.close();
    if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the prompt out of the history its Temporal server holds', async () => {
    expect(serve.output()).toContain(`codec      payloads encrypted with key "serve-key"; ${serve.url}/codec`);
    const started = await request(`${serve.url}/runs`, {
      token: 'dev-token',
      body: { agent: 'assistant', input: PROMPT },
    });
    expect(started.status).toBe(201);
    const runId = started.body.runId as string;
    const done = await waitFor('the run to complete', async () => {
      const res = await request(`${serve.url}/runs/${runId}`, { token: 'dev-token' });
      return res.body.status === 'completed' && res.body;
    });
    expect(done.output.response).toContain('offline demo model');

    // Straight from the server serve started, with no codec: what anyone reading temporal.db or the UI sees.
    const address = /temporal\s+(\S+)/.exec(serve.output())?.[1] as string;
    connection = await Connection.connect({ address });
    const history = await new Client({ connection }).workflow.getHandle(runId).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.includes('passport number')).toBe(false);
    expect(bytes.includes('serve-marker')).toBe(false);

    const input = history.events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const body = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(input?.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(input?.data ?? []).toString('base64'),
        },
      ],
    };
    expect((await request(`${serve.url}/codec/decode`, { body, token: 'dev-token' })).status).toBe(403);
    const decoded = await request(`${serve.url}/codec/decode`, { body, token: 'ops-token' });
    expect(decoded.status).toBe(200);
    expect(Buffer.from(decoded.body.payloads[0].data, 'base64').toString()).toContain(PROMPT);
  });
});
