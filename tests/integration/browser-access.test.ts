// What a browser needs of the bridge: a stream token for EventSource (which cannot send Authorization), scoped to one
// run and its tenant and short-lived, and CORS for the origins the operator lists (none by default). The stream is
// read with the real `eventsource` client sending no header at all.
import { EventSource } from 'eventsource';
import { defineAgent, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { StreamTokens } from '../../bridge/stream-tokens';
import { request, startBridge, type TestBridge } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';

const A = 'a-token';
const B = 'b-token';
const ORIGIN = 'https://viewer.example.com';

/**
 * Reads a stream the way a page does: `new EventSource(url)`, no headers; resolves with its events once the run has
 * ended.
 */
function browserStream(url: string): Promise<AgioEvent[]> {
  return new Promise((resolve, reject) => {
    const events: AgioEvent[] = [];
    const source = new EventSource(url);
    const timer = setTimeout(() => {
      source.close();
      reject(new Error('the stream did not end'));
    }, 30_000);
    const onEvent = (e: MessageEvent) => {
      const event = JSON.parse(e.data as string) as AgioEvent;
      events.push(event);
      if (event.depth === 0 && ['RUN_COMPLETED', 'RUN_FAILED', 'RUN_CANCELLED'].includes(event.type)) {
        clearTimeout(timer);
        source.close();
        resolve(events);
      }
    };
    for (const type of ['RUN_STARTED', 'STEP_DELTA', 'STEP_COMPLETED', 'RUN_COMPLETED', 'RUN_FAILED', 'RUN_CANCELLED'])
      source.addEventListener(type, onEvent);
    source.onerror = (err) => {
      if (source.readyState !== EventSource.CLOSED) return;
      clearTimeout(timer);
      reject(new Error(`stream refused: ${(err as { message?: string }).message ?? ''}`));
    };
  });
}

describe('browser access to the bridge', () => {
  const bed = useTestBed({
    agents: [defineAgent({ name: 'echoer' })],
    bridge: { tokens: `${A}:tenant-a,${B}:tenant-b`, corsOrigins: [ORIGIN], streamTokenSecret: 'shared-secret' },
  });
  /** Starts a run of A's; `finished`: once it has ended (tests that only check access do not leave it running). */
  const start = async (opts: { finished?: boolean } = {}) => {
    bed.server.script(text('hello browser'));
    const runId = (await request(`${bed.bridge.url}/runs`, { token: A, body: { agent: 'echoer', input: 'hi' } })).body
      .runId as string;
    if (opts.finished) await bed.bridge.agio.getHandle(runId).result();
    return runId;
  };

  it('streams a run to an EventSource with a stream token minted for it', async () => {
    const runId = await start();
    const minted = await request(`${bed.bridge.url}/runs/${runId}/stream-token`, { token: A, method: 'POST' });
    expect(minted).toMatchObject({
      status: 201,
      body: {
        token: expect.any(String),
        expiresAt: expect.any(String),
        events: expect.stringContaining('access_token='),
      },
    });
    const events = await browserStream(`${bed.bridge.url}${minted.body.events}`);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', runId });
    expect(events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant')?.snapshot?.content).toBe(
      'hello browser',
    );
  });

  it('refuses a token for another run, a forged or expired one, and another tenant (404 when minting)', async () => {
    const runId = await start({ finished: true });
    const other = await start({ finished: true });
    const { token } = (await request(`${bed.bridge.url}/runs/${runId}/stream-token`, { token: A, method: 'POST' }))
      .body as { token: string };
    const events = (id: string, t: string) =>
      request(`${bed.bridge.url}/runs/${id}/events?access_token=${encodeURIComponent(t)}`, {});
    expect(await events(other, token)).toMatchObject({
      status: 401,
      body: { error: { message: expect.stringContaining('another run') } },
    });
    expect(await events(runId, `${token.split('.')[0]}.forged`)).toMatchObject({
      status: 401,
      body: { error: { message: 'invalid stream token' } },
    });
    const expired = new StreamTokens('shared-secret', 1).mint('tenant-a', runId, Date.now() - 1000).token;
    expect(await events(runId, expired)).toMatchObject({
      status: 401,
      body: { error: { message: expect.stringContaining('expired') } },
    });
    // Tenant B cannot mint a token for A's run: it does not exist for B.
    expect(await request(`${bed.bridge.url}/runs/${runId}/stream-token`, { token: B, method: 'POST' })).toMatchObject({
      status: 404,
    });
    // A token minted by a bridge with another secret is not accepted here.
    const foreign = new StreamTokens('other-secret').mint('tenant-a', runId).token;
    expect(await events(runId, foreign)).toMatchObject({ status: 401 });
    // Without any credential the stream is refused as before.
    expect(await request(`${bed.bridge.url}/runs/${runId}/events`, {})).toMatchObject({ status: 401 });
  });

  it('answers CORS preflights and requests for a listed origin only, SSE streams included', async () => {
    const preflight = await fetch(`${bed.bridge.url}/runs`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    // Schedules and webhooks are changed with PUT and DELETE: a listed origin's page may send them too.
    expect(preflight.headers.get('access-control-allow-methods')?.split(/,\s*/)).toEqual(
      expect.arrayContaining(['PUT', 'DELETE']),
    );
    const other = await fetch(`${bed.bridge.url}/agents`, {
      headers: { origin: 'https://elsewhere.example.com', authorization: `Bearer ${A}` },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const runId = await start({ finished: true });
    const stream = await fetch(`${bed.bridge.url}/runs/${runId}/events`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${A}` },
    });
    expect(stream.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();
  });

  describe('a bridge without CORS origins (the default)', () => {
    let plain: TestBridge;
    beforeAll(async () => {
      plain = await startBridge({ client: bed.client, taskQueue: bed.worker.taskQueue, tokens: `${A}:tenant-a` });
    });
    afterAll(() => plain.close());

    it('sends no CORS headers', async () => {
      const preflight = await fetch(`${plain.url}/runs`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
