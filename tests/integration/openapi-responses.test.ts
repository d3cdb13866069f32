// A real bridge and worker answer as their OpenAPI document says: successes and errors (400, 401, 403, 404, 409, 429)
// of every kind of route, each answer's status, content type and JSON body checked against the document with ajv.
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { ApiDocument } from '../helpers/openapi-check';
import { readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

// A tenant of this file's own: the running-runs quota counts a tenant's runs in the whole Temporal namespace, which
// other test files share.
const TENANT = 'openapi-acme';
const OWNER = 'owner-token';
const READER = 'reader-token';
const OPS = 'ops-token';
const OTHER = 'other-token';
const asker = askingAgent('spec-asker');

describe('answers against the OpenAPI document', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [asker],
    bridge: {
      tokens: `${OWNER}:${TENANT}:owner,${READER}:${TENANT}:dash:read,${OPS}:${TENANT}:ops:admin,${OTHER}:globex`,
      maxRunningRunsPerTenant: 1,
    },
  });
  let api: ApiDocument;
  beforeAll(async () => {
    api = await ApiDocument.of(bed.bridge.url);
  });

  it('answers a run from start to end, and every refusal on the way, as documented', async () => {
    const call = api.call.bind(api);
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'x' }, { id: 'call_s' })]), text('done'));

    // Open doors, and who the token is.
    expect((await call({ path: '/openapi.json' })).status).toBe(200);
    expect((await call({ path: '/healthz' })).body).toEqual({ ok: true });
    expect((await call({ path: '/healthz', token: OWNER })).body.streams).toBeDefined();
    expect((await call({ path: '/whoami', token: READER })).body).toEqual({
      tenant: TENANT,
      identity: 'dash',
      scopes: ['read'],
    });
    expect((await call({ path: '/whoami' })).status).toBe(401);
    expect((await call({ path: '/whoami', token: 'nobody' })).status).toBe(401);
    expect((await call({ path: '/agents', token: READER })).body.agents).toEqual([
      expect.objectContaining({ name: 'spec-asker' }),
    ]);

    // Starting: a malformed body, a token without the scope, then the run.
    expect((await call({ path: '/runs', token: OWNER, body: { agent: 'spec-asker' } })).status).toBe(400);
    expect((await call({ path: '/runs', token: READER, body: { agent: 'spec-asker', input: 'hi' } })).status).toBe(403);
    const started = await call({ path: '/runs', token: OWNER, body: { agent: 'spec-asker', input: 'record x' } });
    expect(started.status).toBe(201);
    const id: string = started.body.runId;
    await waitForAsk(bed.client, id, 'call_s');
    // The tenant is at its quota of one running run.
    const crowded = await call({ path: '/runs', token: OWNER, body: { agent: 'spec-asker', input: 'one more' } });
    expect(crowded).toMatchObject({ status: 429, body: { error: { code: 'quota_exceeded' } } });

    // Reading it, and not reading what is not the caller's.
    expect((await call({ path: '/runs', token: READER })).body.runs.map((r: { runId: string }) => r.runId)).toContain(
      id,
    );
    expect((await call({ path: '/runs', token: READER, query: { limit: '0' } })).status).toBe(400);
    expect((await call({ path: '/runs/{id}', params: { id }, token: READER })).body.status).toBe('running');
    const state = await call({ path: '/runs/{id}/state', params: { id }, token: READER });
    expect(state.body.pendingApprovals).toEqual([expect.objectContaining({ toolCallId: 'call_s' })]);
    expect((await call({ path: '/runs/{id}', params: { id }, token: OTHER })).status).toBe(404);
    expect((await call({ path: '/runs/{id}', params: { id: 'bad id!' }, token: READER })).status).toBe(400);
    expect((await call({ path: '/runs/{id}/stream-token', params: { id }, token: READER, body: {} })).status).toBe(201);
    // The approvals inbox lists the waiting call (visibility catches up); a message for the run's next turn.
    const inbox = await waitFor('the inbox lists the call', async () => {
      const { body } = await call({ path: '/approvals', token: READER });
      return body.approvals?.some((i: { toolCallId: string }) => i.toolCallId === 'call_s') && body;
    });
    expect(inbox.approvals).toHaveLength(1);
    expect((await call({ path: '/approvals', token: READER, query: { color: 'red' } })).status).toBe(400);
    const message = { path: '/runs/{id}/messages', params: { id }, token: OWNER, body: { text: 'and be brief' } };
    expect((await call(message)).status).toBe(202);

    // Steering: pause twice (409), resume, decisions (404 for a call that is not there, 409 for a second one).
    const pause = { path: '/runs/{id}/pause', params: { id }, token: OWNER, body: { reason: 'look' } };
    expect((await call(pause)).body).toMatchObject({ paused: true, pausedBy: 'owner' });
    expect((await call(pause)).body).toMatchObject({ error: { code: 'already_paused' } });
    expect((await call({ path: '/runs/{id}/pause', params: { id }, token: READER, body: {} })).status).toBe(403);
    expect((await call({ path: '/runs/{id}/resume', params: { id }, token: OWNER, body: {} })).body.paused).toBe(false);
    const decide = (callId: string) => ({
      path: '/runs/{id}/tool-calls/{callId}/approve',
      params: { id, callId },
      token: OWNER,
      body: { remember: false },
    });
    expect((await call(decide('call_none'))).body).toMatchObject({ error: { code: 'tool_call_not_found' } });
    expect((await call(decide('call_s'))).body).toEqual({ toolCallId: 'call_s', decision: 'approve' });
    expect((await call(decide('call_s'))).status).toBe(409);

    // Finished: its output, its events (SSE), its records; a cancel now is a conflict.
    const done = await waitFor('the run completes', async () => {
      const { body } = await call({ path: '/runs/{id}', params: { id }, token: READER });
      return body.status === 'completed' && body;
    });
    expect(done.output.response).toBe('done');
    expect((await call({ path: '/runs/{id}/cancel', params: { id }, token: OWNER, body: {} })).status).toBe(409);
    expect(
      (await call({ path: '/runs/{id}/messages', params: { id }, token: OWNER, body: { text: 'late' } })).status,
    ).toBe(409);
    const events = await fetch(`${bed.bridge.url}/runs/${id}/events`, {
      headers: { authorization: `Bearer ${READER}` },
    });
    expect(
      api.problems('GET', '/runs/{id}/events', events.status, events.headers.get('content-type') ?? '', ''),
    ).toEqual([]);
    await events.body?.cancel();
    const sse = await readSse(`${bed.bridge.url}/runs/${id}/events`, { token: READER });
    expect(sse.events.at(-1)?.event).toBe('RUN_COMPLETED');
    for (const frame of sse.events) expect(api.eventProblems('/runs/{id}/events', JSON.parse(frame.data))).toEqual([]);
    expect(api.eventProblems('/runs/{id}/events', { type: 'RUN_STARTED' })).not.toEqual([]);
    expect((await call({ path: '/runs/{id}/events', params: { id }, token: OTHER })).status).toBe(404);
    expect((await call({ path: '/runs/{id}/citations', params: { id }, token: READER })).body.runId).toBe(id);
    expect((await call({ path: '/sessions/{id}', params: { id: 'no-such-session' }, token: READER })).status).toBe(404);
  });

  it('answers operators and budgets as documented', async () => {
    const call = api.call.bind(api);
    const metrics = await call({ path: '/metrics', token: OPS });
    expect(metrics.body).toMatch(/agio_bridge_/);
    expect((await call({ path: '/metrics', token: OWNER })).status).toBe(403);
    const budget = { path: '/tenants/{tenant}/budget', params: { tenant: TENANT } };
    expect((await call({ ...budget, token: OPS, body: { dailyUsd: 5 } })).body).toMatchObject({
      tenant: TENANT,
      dailyUsd: 5,
    });
    expect((await call({ ...budget, token: READER })).body).toMatchObject({ tenant: TENANT, dailyUsd: 5, spentUsd: 0 });
    expect((await call({ ...budget, token: OWNER, body: { dailyUsd: 9 } })).status).toBe(403);
    expect((await call({ ...budget, params: { tenant: 'globex' }, token: READER })).status).toBe(403);
    expect((await call({ ...budget, token: OPS, body: { dailyUsd: null } })).body).not.toHaveProperty('dailyUsd');
    expect(
      (await call({ path: '/runs/{id}/budget', params: { id: 'run-none' }, token: OWNER, body: { maxCostUsd: 1 } }))
        .status,
    ).toBe(404);
    const forged = await call({ path: '/callbacks/{token}', params: { token: 'forged' }, body: { result: 'x' } });
    expect(forged).toMatchObject({ status: 401, body: { error: { code: 'invalid_callback' } } });
  });

  it('answers schedules and webhooks as documented', async () => {
    const call = api.call.bind(api);
    const schedule = { path: '/schedules/{id}', params: { id: 'spec-nightly' }, token: OWNER };
    const declared = { id: 'spec-nightly', agent: 'spec-asker', input: 'nightly', cron: '@daily' };
    expect((await call({ path: '/schedules', token: OWNER, body: declared })).status).toBe(201);
    expect((await call({ path: '/schedules', token: OWNER, body: declared })).status).toBe(409);
    expect((await call({ path: '/schedules', token: OWNER, body: { ...declared, cron: undefined } })).status).toBe(400);
    expect((await call({ path: '/schedules', token: READER })).body.schedules).toHaveLength(1);
    expect((await call({ ...schedule, token: READER })).body).toMatchObject({ id: 'spec-nightly', paused: false });
    expect((await call({ ...schedule, path: '/schedules/{id}/pause', body: { note: 'quiet' } })).body.paused).toBe(
      true,
    );
    expect((await call({ ...schedule, path: '/schedules/{id}/unpause', body: {} })).body.paused).toBe(false);
    const updated = await call({
      ...schedule,
      method: 'PUT',
      body: { agent: 'spec-asker', input: 'hourly', cron: '@hourly' },
    });
    expect(updated.body.input).toBe('hourly');
    expect((await call({ ...schedule, method: 'DELETE' })).body).toEqual({ id: 'spec-nightly', deleted: true });
    expect((await call({ ...schedule, token: READER })).status).toBe(404);

    const created = await call({
      path: '/webhooks',
      token: OPS,
      body: { url: 'https://hooks.example/agio', events: ['approval.expired'] },
    });
    expect(created.status).toBe(201);
    const hook = { path: '/webhooks/{id}', params: { id: created.body.id }, token: READER };
    expect((await call({ path: '/webhooks', token: READER })).body.webhooks).toHaveLength(1);
    expect((await call(hook)).body).toMatchObject({ url: 'https://hooks.example/agio' });
    expect((await call({ ...hook, path: '/webhooks/{id}/deliveries' })).body).toEqual({ deliveries: [] });
    expect((await call({ path: '/webhooks', token: OWNER, body: { url: 'https://x.example' } })).status).toBe(403);
    expect((await call({ ...hook, method: 'DELETE', token: OPS })).status).toBe(204);
    expect((await call(hook)).status).toBe(404);
    // What was checked, for the record: every status class this file promises.
    const statuses = new Set([...api.checked].map((c) => c.split(' ')[2]));
    expect([...statuses].sort()).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '404', '409', '429']),
    );
  });
});
