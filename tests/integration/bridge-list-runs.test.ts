// GET /runs over Temporal visibility: a tenant sees only its own root runs, filtered by agent and status, a page
// at a time with opaque page tokens; bad query parameters get clear 400s.
import { randomUUID } from 'node:crypto';
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

// Every integration file shares one dev server: tenants unique to this file keep other files' runs out of sight.
const tenantA = `list-a-${randomUUID()}`;
const tenantB = `list-b-${randomUUID()}`;
const A = 'list-a-token';
const B = 'list-b-token';
const jsonError = (code: string) => ({ error: { code, message: expect.any(String) } });

interface Listed {
  runId: string;
  agent: string;
  status: string;
  startTime: string;
  closeTime?: string;
}

describe('GET /runs', () => {
  let running: string;
  let release: () => void;
  // Declared before the test bed's own afterAll, so it runs while the bed is still up.
  afterAll(async () => {
    release?.();
    if (running) await bed.bridge.agio.getHandle(running).result();
  });
  const bed = useTestBed({
    agents: [defineAgent({ name: 'echoer' }), defineAgent({ name: 'helper' })],
    bridge: { tokens: `${A}:${tenantA},${B}:${tenantB}` },
  });
  const list = (token: string, query = '') => request(`${bed.bridge.url}/runs${query}`, { token });
  const start = async (token: string, agent: string) =>
    (await request(`${bed.bridge.url}/runs`, { token, body: { agent, input: 'hi' } })).body.runId as string;
  let done: string[];
  let ofB: string;

  beforeAll(async () => {
    bed.server.script(text('one'), text('two'));
    done = [await start(A, 'echoer'), await start(A, 'helper')];
    await Promise.all(done.map((id) => bed.bridge.agio.getHandle(id).result()));
    const held = heldAnswer(text('three'));
    release = held.release;
    bed.server.script(held.answer, text('of b'));
    running = await start(A, 'echoer');
    await waitFor('the held run to call the model', () => bed.server.requests.length === 3);
    ofB = await start(B, 'echoer');
    await bed.bridge.agio.getHandle(ofB).result();
    // Visibility is eventually consistent: wait until every run shows with its latest status.
    await waitFor(
      "tenant A's three runs in visibility",
      async () =>
        (await list(A)).body.runs?.filter((r: Listed) => r.status === 'completed').length === 2 &&
        (await list(A)).body.runs.length === 3,
    );
    await waitFor(
      "tenant B's run in visibility",
      async () => (await list(B, '?status=completed')).body.runs?.length === 1,
    );
  });

  it("lists the caller's own root runs, newest first, and nobody else's", async () => {
    const a = await list(A);
    expect(a.status).toBe(200);
    expect(a.body.nextPageToken).toBeUndefined();
    expect(new Set(a.body.runs.map((r: Listed) => r.runId))).toEqual(new Set([...done, running]));
    expect(a.body.runs.find((r: Listed) => r.runId === running)).toEqual({
      runId: running,
      agent: 'echoer',
      status: 'running',
      startTime: expect.any(String),
    });
    const helper = a.body.runs.find((r: Listed) => r.runId === done[1]);
    expect(helper).toEqual({
      runId: done[1],
      agent: 'helper',
      status: 'completed',
      startTime: expect.any(String),
      closeTime: expect.any(String),
    });
    expect(Date.parse(helper.closeTime)).toBeGreaterThanOrEqual(Date.parse(helper.startTime));

    const b = await list(B);
    expect(b.body.runs.map((r: Listed) => r.runId)).toEqual([ofB]);
  });

  it('filters by agent and by status (case-insensitive)', async () => {
    expect((await list(A, '?agent=helper')).body.runs.map((r: Listed) => r.runId)).toEqual([done[1]]);
    expect((await list(A, '?status=running')).body.runs.map((r: Listed) => r.runId)).toEqual([running]);
    expect(new Set((await list(A, '?status=COMPLETED')).body.runs.map((r: Listed) => r.runId))).toEqual(new Set(done));
    expect((await list(A, '?agent=echoer&status=completed')).body.runs.map((r: Listed) => r.runId)).toEqual([done[0]]);
    expect((await list(A, '?agent=nobody')).body).toEqual({ runs: [] });
    expect((await list(B, '?status=failed')).body).toEqual({ runs: [] });
  });

  it('pages with limit and the opaque nextPageToken: every run once, in the same order as one big page', async () => {
    const whole = (await list(A)).body.runs.map((r: Listed) => r.runId);
    const paged: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await list(A, `?limit=1${token ? `&pageToken=${token}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.runs.length).toBeLessThanOrEqual(1);
      paged.push(...res.body.runs.map((r: Listed) => r.runId));
      token = res.body.nextPageToken;
      if (!token) break;
    }
    expect(token).toBeUndefined();
    expect(paged).toEqual(whole);
  });

  it('answers bad query parameters with 400 and a message naming the parameter, and no token with 401', async () => {
    for (const [query, names] of [
      ['?status=sleeping', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?agent=no%20spaces', 'agent'],
      ['?pageToken=not*a*token', 'pageToken'],
      ['?pageToken=AAAAAAAAAAAAAAAA', 'pageToken'],
      [`?pageToken=${Buffer.from('{"q":"x","t":"AAAA"}').toString('base64url')}`, 'pageToken'],
      ['?colour=blue', 'colour'],
    ]) {
      const res = await list(A, query);
      expect([query, res]).toEqual([query, { status: 400, body: jsonError('invalid_request') }]);
      expect(res.body.error.message).toContain(names);
    }
    // A token continues only the listing that issued it: not another filter's, not another tenant's.
    const token = (await list(A, '?limit=1')).body.nextPageToken;
    expect(token).toEqual(expect.any(String));
    expect(await list(A, `?limit=1&status=running&pageToken=${token}`)).toEqual({
      status: 400,
      body: jsonError('invalid_request'),
    });
    expect(await list(B, `?limit=1&pageToken=${token}`)).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await request(`${bed.bridge.url}/runs`, {})).toEqual({ status: 401, body: jsonError('unauthorized') });
  });
});
