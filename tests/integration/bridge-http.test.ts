// The bridge's HTTP surface over a real worker: tenant isolation (another tenant's run is a 404, exactly like a
// missing one), bearer-token auth, clear JSON errors for bad requests, and cancel (202 while running, 409 after).
import { defineAgent } from '../../common';
import { text } from '../../worker/dev-server/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const A = 'a-token';
const B = 'b-token';
const jsonError = (code: string) => ({ error: { code, message: expect.any(String) } });

describe('bridge HTTP API', () => {
  const bed = useTestBed({ agents: [defineAgent({ name: 'echoer' })], bridge: { tokens: `${A}:tenant-a,${B}:tenant-b` } });
  let finishedRunOfA: string;

  beforeAll(async () => {
    bed.server.script(text('for tenant A only'));
    const started = await request(`${bed.bridge.url}/runs`, { token: A, body: { agent: 'echoer', input: 'hello' } });
    expect(started).toEqual({ status: 201, body: { runId: expect.stringMatching(/^run-/), links: expect.any(Object) } });
    finishedRunOfA = started.body.runId;
    await bed.bridge.agio.getHandle(finishedRunOfA).result();
  });

  it("shows a run to its own tenant and answers 404 to another tenant's token on every run route", async () => {
    const own = await request(`${bed.bridge.url}/runs/${finishedRunOfA}`, { token: A });
    expect(own).toMatchObject({ status: 200, body: { runId: finishedRunOfA, agent: 'echoer', status: 'COMPLETED', output: { response: 'for tenant A only' } } });

    const missing = await request(`${bed.bridge.url}/runs/run-does-not-exist`, { token: B });
    expect(missing).toEqual({ status: 404, body: jsonError('run_not_found') });
    for (const [method, path] of [
      ['GET', `/runs/${finishedRunOfA}`],
      ['GET', `/runs/${finishedRunOfA}/events`],
      ['POST', `/runs/${finishedRunOfA}/cancel`],
    ]) {
      const res = await request(`${bed.bridge.url}${path}`, { method, token: B });
      expect([method, path, res]).toEqual([method, path, { status: 404, body: jsonError('run_not_found') }]);
      // Word for word what a run that does not exist gets: B learns nothing about A's run.
      expect(res.body.error.message).toBe(`no run with id "${finishedRunOfA}"`);
    }
  });

  it('answers 401 without a token, with an unknown token and with a malformed Authorization header', async () => {
    const routes: [string, string][] = [
      ['GET', `/runs/${finishedRunOfA}`],
      ['GET', `/runs/${finishedRunOfA}/events`],
      ['POST', `/runs/${finishedRunOfA}/cancel`],
      ['POST', '/runs'],
      ['GET', '/agents'],
    ];
    for (const [method, path] of routes) {
      const headerSets: Record<string, string>[] = [{}, { authorization: 'Bearer nobody-token' }, { authorization: `Basic ${A}` }];
      for (const headers of headerSets) {
        const res = await request(`${bed.bridge.url}${path}`, { method, headers, ...(method === 'POST' && path === '/runs' ? { body: { agent: 'echoer', input: 'x' } } : {}) });
        expect([method, path, headers, res]).toEqual([method, path, headers, { status: 401, body: jsonError('unauthorized') }]);
      }
    }
  });

  it('answers each bad request with a clear JSON error', async () => {
    const post = (body: unknown, extra: { headers?: Record<string, string> } = {}) => request(`${bed.bridge.url}/runs`, { token: A, body, ...extra });

    expect(await post('{"agent": "echoer", "input": ')).toEqual({ status: 400, body: jsonError('malformed_json') });
    expect(await post({ agent: 'echoer' })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect((await post({ agent: 'echoer' })).body.error.message).toMatch(/input/);
    expect(await post({ agent: 'echoer', input: '' })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await post({ agent: 'echoer', input: 42 })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await post({ agent: 'nobody', input: 'hi' })).toEqual({ status: 404, body: jsonError('unknown_agent') });
    expect((await post({ agent: 'nobody', input: 'hi' })).body.error.message).toContain('nobody');
    expect(await request(`${bed.bridge.url}/runs/bad%20id!`, { token: A })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await request(`${bed.bridge.url}/runs/bad%20id!/events`, { token: A })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await request(`${bed.bridge.url}/nowhere`, { token: A })).toEqual({ status: 404, body: jsonError('not_found') });
    expect(await request(`${bed.bridge.url}/runs/${finishedRunOfA}/explode`, { method: 'POST', token: A })).toEqual({ status: 404, body: jsonError('not_found') });
    expect(await request(`${bed.bridge.url}/runs/${finishedRunOfA}/cancel`, { method: 'POST', token: A })).toEqual({ status: 409, body: jsonError('run_not_running') });
  });

  it('cancels a running run (202), ending its SSE stream with RUN_CANCELLED, and answers 409 to a second cancel', async () => {
    const { answer, release } = heldAnswer(text('never seen'));
    bed.server.script(answer);
    const { body } = await request(`${bed.bridge.url}/runs`, { token: A, body: { agent: 'echoer', input: 'wait' } });
    const runId = body.runId as string;
    const reading = readSse(`${bed.bridge.url}/runs/${runId}/events`, { token: A });

    const cancelled = await request(`${bed.bridge.url}/runs/${runId}/cancel`, { method: 'POST', token: A });
    const { events: frames, closedBy } = await reading;
    release();

    expect(cancelled).toEqual({ status: 202, body: { runId, cancelRequested: true } });
    const events = agioEvents(frames);
    expect(closedBy).toBe('server');
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)).toMatchObject({ type: 'RUN_CANCELLED', depth: 0, runId });
    expect(await request(`${bed.bridge.url}/runs/${runId}/cancel`, { method: 'POST', token: A })).toEqual({ status: 409, body: jsonError('run_not_running') });
    expect(await request(`${bed.bridge.url}/runs/${runId}`, { token: A })).toMatchObject({ status: 200, body: { status: 'CANCELLED' } });
  });
});
