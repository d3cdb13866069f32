// History read raw from Temporal with the payload codec on: a run whose prompt, tool output and answer are
// distinctive completes, the raw history holds none of them while Agio's client and bridge read the run as usual,
// replay-check replays it, and the bridge's codec endpoint decodes its payloads for an admin and nobody else.
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { replayCheckCommand } from '../../cli/replay-check';
import { payloadCodecFromEnv } from '../../config/codec-keys';
import type { AesGcmPayloadCodec } from '../../config/payload-codec';
import { defineAgent } from '../../common';
import { findBinary } from '../../devkit/install-binary';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { testTools } from '../fixtures/test-tools';
import { request } from '../helpers/bridge';
import { testClient } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/workflow-agents';

const PROMPT = 'prompt-marker-7f3a: the vault combination is 31-17-42';
const TOOL_TEXT = 'tool-marker-c91e: the echo came back';
const ANSWER = 'answer-marker-5d20: opened';
const MARKERS = [PROMPT.slice(0, 18), TOOL_TEXT.slice(0, 16), ANSWER.slice(0, 18), 'vault combination'];

/** Where `agio serve` starts the Temporal Web UI; an operator adds its origin to AGIO_CORS_ORIGINS. */
const UI_ORIGIN = 'http://127.0.0.1:8233';

/** The bridge's request log. */
const logLines: string[] = [];

const agent = defineAgent({ name: 'keeper', instructions: 'Keep secrets.', tools: ['echo'] });
const CODEC_KEYS = `k-2026-11:${randomBytes(32).toString('base64')}`;
const codec = payloadCodecFromEnv({ AGIO_CODEC_KEYS: CODEC_KEYS }) as AesGcmPayloadCodec;

/** The proto JSON form the codec endpoint takes (base64 metadata values and data). */
const json = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

describe('payload codec', () => {
  jest.setTimeout(90_000);
  const bed = useTestBed({
    tools: testTools,
    agents: [agent],
    payloadCodec: codec,
    bridge: {
      tokens: 'user-token:default,ops-token:default:ops:read+admin',
      corsOrigins: [UI_ORIGIN],
      logger: { write: (line: string) => void logLines.push(line) },
    },
  });
  let runId: string;
  let raw: Awaited<ReturnType<typeof testClient>>;
  let history: temporal.api.history.v1.IHistory;

  beforeAll(async () => {
    raw = await testClient();
  });
  afterAll(async () => raw?.connection.close());

  it('keeps the prompt, the tool output and the answer out of the raw history while the run reads as usual', async () => {
    bed.server.script(toolCalls([toolCall('echo', { text: TOOL_TEXT })]), text(ANSWER));
    const run = await bed.agio.start(agent, PROMPT);
    runId = run.runId;
    const output = await run.result();
    expect(output.response).toBe(ANSWER);
    // The model saw the clear prompt and tool output: the worker decoded them.
    expect(JSON.stringify(bed.server.requests[1].body)).toContain(TOOL_TEXT);

    // A client without the codec (the server's own view, the Web UI's without a codec endpoint) sees only ciphertext.
    history = await raw.client.workflow.getHandle(runId).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    for (const marker of MARKERS) expect(bytes.includes(marker)).toBe(false);
    const started = history.events?.[0].workflowExecutionStartedEventAttributes;
    expect(Buffer.from(started?.input?.payloads?.[0].metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
    await expect(raw.client.workflow.getHandle(runId).result()).rejects.toThrow(/binary\/encrypted/);

    // With the codec the same payloads hold them all.
    const decoded = await codec.decode(payloadsOf(history));
    const clear = decoded.map((p) => Buffer.from(p.data ?? []).toString()).join('\n');
    for (const marker of MARKERS) expect(clear).toContain(marker);

    // The bridge (same codec) finds the run's tenant in its encrypted memo and answers its result.
    const res = await request(`${bed.bridge.url}/runs/${runId}`, { token: 'user-token' });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain(ANSWER);
  });

  it('replays the encrypted history with AGIO_CODEC_KEYS (agio replay-check), and says what is missing without', async () => {
    const query = `WorkflowId = '${runId}'`;
    await waitFor('the run in visibility', async () => (await bed.client.workflow.count(query)).count === 1);
    const argv = ['--query', query, '--closed', '5', '--bundle', testEnv('workflowBundle')];
    const cli = async (env: NodeJS.ProcessEnv) => {
      const lines: string[] = [];
      const code = await replayCheckCommand(argv, { env, out: (l) => lines.push(l), err: (l) => lines.push(l) });
      return { code, out: lines.join('\n') };
    };
    const address = testEnv('temporalAddress');
    const withKeys = await cli({ TEMPORAL_ADDRESS: address, AGIO_CODEC_KEYS: CODEC_KEYS });
    expect(withKeys.out).toContain(`1 runs replayed, 0 failed`);
    expect(withKeys.code).toBe(0);
    // Without them even listing fails (the runs' memos are encrypted too), and the message says what to give.
    const without = await cli({ TEMPORAL_ADDRESS: address });
    expect(without.code).toBe(2);
    expect(without.out).toMatch(/binary\/encrypted.*AGIO_CODEC_KEYS/);
  });

  it('decodes a payload of that history at /codec/decode for an admin token only', async () => {
    const input = history.events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0] as Payload;
    const body = { payloads: [json(input)] };
    const url = `${bed.bridge.url}/codec/decode`;
    expect((await request(url, { body })).status).toBe(401);
    expect((await request(url, { body, token: 'user-token' })).status).toBe(403);
    const res = await request(url, { body, token: 'ops-token', headers: { 'x-namespace': 'default' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body.payloads[0].data, 'base64').toString()).toContain(PROMPT);
    expect(Buffer.from(res.body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
    const other = await request(url, { body, token: 'ops-token', headers: { 'x-namespace': 'prod' } });
    expect(other.body.error.code).toBe('wrong_namespace');
    const tampered = { payloads: [{ ...json(input), data: Buffer.alloc(40).toString('base64') }] };
    expect((await request(url, { body: tampered, token: 'ops-token' })).body.error.code).toBe('codec_failed');
    // And back: what /codec/encode gives decodes to the same payload.
    const plain = res.body.payloads;
    const encoded = await request(`${bed.bridge.url}/codec/encode`, { body: { payloads: plain }, token: 'ops-token' });
    const again = await request(url, { body: encoded.body, token: 'ops-token' });
    expect(again.body.payloads).toEqual(plain);
  });

  it('lets the Temporal CLI show the run decoded through the endpoint (--codec-endpoint, --codec-auth)', async () => {
    const show = async (...codec: string[]) => {
      const args = ['workflow', 'show', '--address', testEnv('temporalAddress'), '--workflow-id', runId, '-o', 'json'];
      const { stdout } = await promisify(execFile)(findBinary(TEMPORAL_CLI)!, [...args, ...codec], { timeout: 30_000 });
      // Its JSON keeps payload data in base64: what the payloads say, in clear when they were decoded.
      return [...stdout.matchAll(/"data": "([A-Za-z0-9+/=]*)"/g)].map((m) => Buffer.from(m[1], 'base64')).join('\n');
    };
    expect(await show()).not.toContain('vault combination');
    const decoded = await show('--codec-endpoint', `${bed.bridge.url}/codec`, '--codec-auth', 'Bearer ops-token');
    expect(decoded).toContain('vault combination');
    expect(decoded).toContain(ANSWER);
  });

  it('gives the Web UI a codec link that decodes without a bearer token, and refuses a forged one', async () => {
    expect((await request(`${bed.bridge.url}/codec/links`, { body: {}, token: 'user-token' })).status).toBe(403);
    const link = await request(`${bed.bridge.url}/codec/links`, { body: {}, token: 'ops-token' });
    expect(link.status).toBe(200);
    const endpoint = link.body.endpoint as string;
    expect(endpoint).toMatch(/\/codec\/link\/[^/]+$/);
    const input = history.events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0] as Payload;
    const res = await request(`${endpoint}/decode`, { body: { payloads: [json(input)] } });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body.payloads[0].data, 'base64').toString()).toContain(PROMPT);
    const forged = await request(`${endpoint.slice(0, -3)}AAA/decode`, { body: { payloads: [json(input)] } });
    expect(forged.status).toBe(401);
    // What the UI's page does: a preflight naming X-Namespace, then the POST from its origin.
    const preflight = await fetch(`${endpoint}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const fromUi = await request(`${endpoint}/decode`, {
      body: { payloads: [json(input)] },
      headers: { origin: UI_ORIGIN, 'x-namespace': 'default' },
    });
    expect(fromUi.status).toBe(200);
    // The link is in the path, where log redaction does not look: its requests are not logged at all.
    const linkToken = endpoint.split('/').pop() as string;
    expect(logLines.some((l) => l.includes('/codec/links'))).toBe(true);
    expect(logLines.filter((l) => l.includes(linkToken))).toEqual([]);
  });
});

/** Every payload of a history's events: inputs, results, activity arguments and results, signals, markers. */
function payloadsOf(history: temporal.api.history.v1.IHistory): Payload[] {
  const found: Payload[] = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const v = value as { metadata?: unknown; data?: unknown };
    if (v.metadata && v.data instanceof Uint8Array) found.push(v as Payload);
    else Object.values(value).forEach(visit);
  };
  visit(history.events);
  return found;
}
