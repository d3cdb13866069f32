// The bridge's HTTP surface over a real worker: tenant isolation (another tenant's run is a 404, exactly like a
// missing one), bearer-token auth, clear JSON errors for bad requests, cancel (202 while running, 409 after), and
// nested runs addressed by their own ids.
import { asTool, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { waitFor } from '../helpers/workflow-agents';
import { request } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const A = 'a-token';
const B = 'b-token';
const jsonError = (code: string) => ({ error: { code, message: expect.any(String) } });

describe('bridge HTTP API', () => {
  const helper = defineAgent({ name: 'helper', instructions: 'You are the helper.' });
  const lead = defineAgent({
    name: 'lead',
    instructions: 'You are the lead.',
    tools: [asTool(helper, { description: 'Helps.' })],
  });
  const bed = useTestBed({
    agents: [defineAgent({ name: 'echoer' }), defineAgent({ name: 'lister', tools: ['ls'], maxSteps: 10 }), lead],
    bridge: { tokens: `${A}:tenant-a,${B}:tenant-b` },
  });
  let finishedRunOfA: string;

  beforeAll(async () => {
    bed.server.script(text('for tenant A only'));
    const started = await request(`${bed.bridge.url}/runs`, { token: A, body: { agent: 'echoer', input: 'hello' } });
    expect(started).toEqual({
      status: 201,
      body: { runId: expect.stringMatching(/^run-/), links: expect.any(Object) },
    });
    finishedRunOfA = started.body.runId;
    await bed.bridge.agio.getHandle(finishedRunOfA).result();
  });

  it("shows a run to its own tenant and answers 404 to another tenant's token on every run route", async () => {
    const own = await request(`${bed.bridge.url}/runs/${finishedRunOfA}`, { token: A });
    expect(own).toMatchObject({
      status: 200,
      body: { runId: finishedRunOfA, agent: 'echoer', status: 'completed', output: { response: 'for tenant A only' } },
    });

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
      const headerSets: Record<string, string>[] = [
        {},
        { authorization: 'Bearer nobody-token' },
        { authorization: `Basic ${A}` },
      ];
      for (const headers of headerSets) {
        const res = await request(`${bed.bridge.url}${path}`, {
          method,
          headers,
          ...(method === 'POST' && path === '/runs' ? { body: { agent: 'echoer', input: 'x' } } : {}),
        });
        expect([method, path, headers, res]).toEqual([
          method,
          path,
          headers,
          { status: 401, body: jsonError('unauthorized') },
        ]);
      }
    }
  });

  it('answers each bad request with a clear JSON error', async () => {
    const post = (body: unknown, extra: { headers?: Record<string, string> } = {}) =>
      request(`${bed.bridge.url}/runs`, { token: A, body, ...extra });

    expect(await post('{"agent": "echoer", "input": ')).toEqual({ status: 400, body: jsonError('malformed_json') });
    expect(await post({ agent: 'echoer' })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect((await post({ agent: 'echoer' })).body.error.message).toMatch(/input/);
    expect(await post({ agent: 'echoer', input: '' })).toEqual({ status: 400, body: jsonError('invalid_request') });
    expect(await post({ agent: 'echoer', input: 42 })).toEqual({ status: 400, body: jsonError('invalid_request') });
    // A name the bridge does not hold starts by name: a worker without it fails the run at once (start-by-name tests).
    const nobody = await post({ agent: 'nobody', input: 'hi' });
    expect(nobody.status).toBe(201);
    await expect(bed.bridge.agio.getHandle(nobody.body.runId).result()).rejects.toMatchObject({
      cause: { type: 'UnknownAgent', message: expect.stringContaining('nobody') },
    });
    expect(await post({ agent: 'echoer', input: 'hi', limits: { maxStepz: 3 } })).toEqual({
      status: 400,
      body: jsonError('invalid_request'),
    });
    expect((await post({ agent: 'echoer', input: 'hi', limits: { maxSteps: -1 } })).body.error.message).toMatch(
      /maxSteps/,
    );
    expect(await request(`${bed.bridge.url}/runs/bad%20id!`, { token: A })).toEqual({
      status: 400,
      body: jsonError('invalid_request'),
    });
    expect(await request(`${bed.bridge.url}/runs/bad%20id!/events`, { token: A })).toEqual({
      status: 400,
      body: jsonError('invalid_request'),
    });
    expect(await request(`${bed.bridge.url}/nowhere`, { token: A })).toEqual({
      status: 404,
      body: jsonError('not_found'),
    });
    expect(await request(`${bed.bridge.url}/runs/${finishedRunOfA}/explode`, { method: 'POST', token: A })).toEqual({
      status: 404,
      body: jsonError('not_found'),
    });
    expect(await request(`${bed.bridge.url}/runs/${finishedRunOfA}/cancel`, { method: 'POST', token: A })).toEqual({
      status: 409,
      body: jsonError('run_not_running'),
    });
  });

  it("starts a run with its own limits over the agent's", async () => {
    bed.server.script(toolCalls([toolCall('ls', {})]), text('summary at the step limit'));
    const started = await request(`${bed.bridge.url}/runs`, {
      token: A,
      body: { agent: 'lister', input: 'look', limits: { maxSteps: 1, modelRetryWindowMs: 60_000 } },
    });
    expect(started.status).toBe(201);
    const output = await bed.bridge.agio.getHandle(started.body.runId).result();
    expect(output).toMatchObject({ terminationReason: 'max_steps', response: 'summary at the step limit' });
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
    expect(await request(`${bed.bridge.url}/runs/${runId}/cancel`, { method: 'POST', token: A })).toEqual({
      status: 409,
      body: jsonError('run_not_running'),
    });
    expect(await request(`${bed.bridge.url}/runs/${runId}`, { token: A })).toMatchObject({
      status: 200,
      body: { status: 'cancelled' },
    });
  });

  it("serves a nested run under its own id: status, state, its part of the root's stream, the root's trace; 404 to another tenant", async () => {
    const held = heldAnswer(text('helper done'));
    bed.server.scriptFor(
      'You are the lead.',
      toolCalls([toolCall('helper', { task: 'help' }, { id: 'call_h' })]),
      text('lead done'),
    );
    bed.server.scriptFor('You are the helper.', held.answer);
    const { body } = await request(`${bed.bridge.url}/runs`, { token: A, body: { agent: 'lead', input: 'go' } });
    const rootId = body.runId as string;
    const childId = `${rootId}/tool/3-call_h`;
    const child = `${bed.bridge.url}/runs/${encodeURIComponent(childId)}`;

    await waitFor('the nested run to start', async () => (await request(child, { token: A })).status === 200);
    expect(await request(child, { token: A })).toMatchObject({
      status: 200,
      body: { runId: childId, rootRunId: rootId, agent: 'helper', status: 'running' },
    });
    expect(await request(child, { token: B })).toEqual({ status: 404, body: jsonError('run_not_found') });
    expect(await request(`${child}/events`, { token: B })).toEqual({ status: 404, body: jsonError('run_not_found') });
    expect(await request(`${child}/state`, { token: A })).toMatchObject({
      status: 200,
      body: { runId: childId, agent: 'helper' },
    });

    const childStream = readSse(`${child}/events`, { token: A });
    const rootStream = readSse(`${bed.bridge.url}/runs/${rootId}/events`, { token: A });
    held.release();
    const [{ events: childFrames, closedBy }, { events: rootFrames }] = await Promise.all([childStream, rootStream]);

    // The nested stream is the nested run's subtree, read from its own log (it keeps one: offsets of that log, from 0),
    // ending at its own end; the root's stream has the same events.
    const childEvents = agioEvents(childFrames);
    const rootEvents = agioEvents(rootFrames);
    expect(closedBy).toBe('server');
    expect(childEvents.length).toBeGreaterThan(2);
    expect(childEvents).toEqual(rootEvents.filter((e) => e.runId === childId));
    expect(childEvents[0]).toMatchObject({ type: 'RUN_STARTED', runId: childId, depth: 1, ownLog: true, offset: 0 });
    expect(childEvents.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', runId: childId, depth: 1 });
    expect(rootEvents.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', runId: rootId, depth: 0 });
    // Resuming a nested stream uses its own log's offsets.
    const resumed = agioEvents(
      (await readSse(`${child}/events`, { token: A, lastEventId: String(childEvents[1].offset) })).events,
    );
    expect(resumed).toEqual(childEvents.slice(2));

    expect(await request(child, { token: A })).toMatchObject({
      status: 200,
      body: { status: 'completed', output: { response: 'helper done' } },
    });
    const trace = await request(`${child}/trace`, { token: A });
    expect(trace).toMatchObject({ status: 200, body: { traceId: rootId } });
  });
});
