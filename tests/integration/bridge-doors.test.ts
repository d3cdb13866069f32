// The bridge's doors as an attacker meets them: a DNS-rebinding page (another Host), a foreign page posting (another
// Origin), a probe of /healthz without a token, GET /agents looking for paths, and request logs read for tokens.
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { request } from '../helpers/bridge';
import { readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'door-token';
const solo = defineAgent({ name: 'solo', instructions: 'You answer.' });

describe("the bridge's doors", () => {
  const logs: string[] = [];
  const bed = useTestBed({
    agents: [solo],
    bridge: {
      tokens: `${TOKEN}:tenant-d`,
      agentsSource: '/home/someone/secret-project/agents.yaml',
      logger: { write: (line) => void logs.push(line) },
    },
  });
  const port = () => new URL(bed.bridge.url).port;

  it('refuses a request whose Host is a name it does not answer to (DNS rebinding), on every route', async () => {
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['GET', '/agents'],
      ['POST', '/runs'],
      ['GET', '/ui/'],
    ]) {
      const res = await request(`${bed.bridge.url}${path}`, {
        method,
        token: TOKEN,
        headers: { host: `attacker.example:${port()}` },
        ...(method === 'POST' ? { body: { agent: 'solo', input: 'hi' } } : {}),
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'host_not_allowed',
        message: expect.stringContaining('attacker.example'),
      });
    }
  });

  it('answers its loopback names, with any port', async () => {
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, '[::1]:80', 'LOCALHOST']) {
      const res = await request(`${bed.bridge.url}/agents`, { token: TOKEN, headers: { host } });
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  it("refuses a state change from another site's page, and takes one from its own origin or a client without Origin", async () => {
    const post = (origin?: string) =>
      request(`${bed.bridge.url}/runs`, {
        token: TOKEN,
        // A field POST /runs does not take: past the door, the route refuses it (no run is started).
        body: { agent: 'no-such-agent', input: 'hi', noSuchField: true },
        ...(origin ? { headers: { origin } } : {}),
      });
    const foreign = await post('http://attacker.example');
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('origin_not_allowed');
    expect((await post('null')).status).toBe(403);
    // Past the door, the route itself answers: a field it does not take.
    expect((await post(bed.bridge.url)).status).toBe(400);
    expect((await post()).status).toBe(400);
  });

  it('says only up or down on /healthz without a token, and its counters to a token holder', async () => {
    const open = await request(`${bed.bridge.url}/healthz`);
    expect(open).toEqual({ status: 200, body: { ok: true } });
    const withToken = await request(`${bed.bridge.url}/healthz`, { token: TOKEN });
    expect(withToken.body).toMatchObject({ ok: true, streams: expect.any(Object) });
    expect((await request(`${bed.bridge.url}/healthz`, { token: 'wrong' })).status).toBe(401);
  });

  it('names the agents file without its path in GET /agents', async () => {
    const { body } = await request(`${bed.bridge.url}/agents`, { token: TOKEN });
    expect(body.source).toBe('agents.yaml');
    expect(JSON.stringify(body)).not.toContain('/home/someone');
  });

  it('keeps no token in its request logs: not a stream token in the URL, not a bearer token', async () => {
    bed.server.script(text('done'));
    const { body } = await request(`${bed.bridge.url}/runs`, { token: TOKEN, body: { agent: 'solo', input: 'hi' } });
    const minted = await request(`${bed.bridge.url}/runs/${body.runId}/stream-token`, { token: TOKEN, body: {} });
    const streamToken = minted.body.token as string;
    await readSse(`${bed.bridge.url}/runs/${body.runId}/events?access_token=${streamToken}`, { timeoutMs: 30_000 });
    await request(`${bed.bridge.url}/runs?token=${TOKEN}&x=1`, { token: TOKEN });
    await request(`${bed.bridge.url}/agents`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    const written = logs.join('');
    expect(written).toContain(`/runs/${body.runId}/events?access_token=[redacted]`);
    expect(written).toContain('/runs?token=[redacted]&x=1');
    expect(written).not.toContain(streamToken);
    expect(written).not.toContain(streamToken.split('.')[1]);
    expect(written).not.toContain(TOKEN);
  });
});
