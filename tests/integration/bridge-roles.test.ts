// Roles at the bridge, as an attacker holding one token would try them: a read-only token that starts, approves, pauses
// and cancels (403 naming the scope); a `by` that names someone else (refused; decisions record the token's identity);
// run limits above the agent's own (400 naming the limit, unless an admin token asks).
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { defineAgent } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, authData, keyOf, recordsOf, waitForAsk, waitForAuth } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';

const ALICE = 'alice-token';
const READER = 'reader-token';
const OPS = 'ops-token';
const asker = askingAgent('role-asker');
const capped = defineAgent({
  name: 'capped',
  instructions: 'You are capped.',
  maxSteps: 2,
  limits: { maxTotalTokens: 1000 },
});

describe('roles at the bridge', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [asker, capped],
    bridge: { tokens: `${ALICE}:acme:alice,${READER}:acme:dash:read,${OPS}:acme:ops:admin` },
  });
  const post = (path: string, token: string, body: object = {}) => request(`${bed.bridge.url}${path}`, { token, body });
  const forbidden = (scope: string) => ({
    status: 403,
    body: { error: { code: 'forbidden', scope, message: `this token lacks the "${scope}" scope` } },
  });

  it('refuses a read-only token that starts, approves, denies, pauses or cancels (403 naming the scope), and lets it read', async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'r' }, { id: 'call_ro' })]));
    const run = await bed.bridge.agio.start(asker, 'record something', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_ro');
    const at = `/runs/${run.runId}`;

    expect(await post('/runs', READER, { agent: 'role-asker', input: 'hi' })).toEqual(forbidden('start'));
    expect(await post(`${at}/tool-calls/call_ro/approve`, READER)).toEqual(forbidden('decide'));
    expect(await post(`${at}/tool-calls/call_ro/deny`, READER)).toEqual(forbidden('decide'));
    expect(await post(`${at}/pause`, READER)).toEqual(forbidden('control'));
    expect(await post(`${at}/cancel`, READER)).toEqual(forbidden('control'));
    expect(await request(`${bed.bridge.url}${at}`, { token: READER })).toMatchObject({
      status: 200,
      body: { runId: run.runId, status: 'running' },
    });
    expect(await request(`${bed.bridge.url}/runs`, { token: READER })).toMatchObject({ status: 200 });
    expect((await post(`${at}/stream-token`, READER)).status).toBe(201);
    expect(await request(`${bed.bridge.url}/whoami`, { token: READER })).toEqual({
      status: 200,
      body: { tenant: 'acme', identity: 'dash', scopes: ['read'] },
    });

    // Nothing happened: the call still waits, nothing ran, the run was not paused.
    expect(await run.state()).toMatchObject({ status: 'running', pendingApprovals: [{ toolCallId: 'call_ro' }] });
    expect(recordsOf(run.runId)).toEqual([]);
    await run.cancel();
  });

  it('records the token identity as `by`, and refuses a body `by` naming anyone else', async () => {
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'a' }, { id: 'call_by' })]),
      text('recorded'),
    );
    const run = await bed.bridge.agio.start(asker, 'record something', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_by');
    const at = `/runs/${run.runId}`;

    for (const path of [`${at}/tool-calls/call_by/approve`, `${at}/pause`, `${at}/resume`]) {
      const spoofed = await post(path, ALICE, { by: 'the-ceo' });
      expect(spoofed).toMatchObject({ status: 403, body: { error: { code: 'forbidden', by: 'alice' } } });
    }
    // Paused while it waits for the person, approved meanwhile: the tool runs after the resume.
    expect(await post(`${at}/pause`, ALICE, { reason: 'look first' })).toMatchObject({
      status: 200,
      body: { paused: true, pausedBy: 'alice' },
    });
    expect(await post(`${at}/tool-calls/call_by/approve`, ALICE)).toEqual({
      status: 200,
      body: { toolCallId: 'call_by', decision: 'approve' },
    });
    expect(authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_by'))).toMatchObject({
      by: 'alice',
    });
    expect((await post(`${at}/resume`, ALICE, { by: 'alice' })).status).toBe(200);
    expect((await run.result()).response).toBe('recorded');
  });

  it('refuses limits above the agent’s own (400 naming the limit) and starts nothing; tighter ones pass', async () => {
    const above: [object, string, number][] = [
      [{ maxSteps: 3 }, 'maxSteps', 2],
      [{ maxTotalTokens: 5000 }, 'maxTotalTokens', 1000],
      [{ maxDepth: 6 }, 'maxDepth', 5],
      [{ modelRetryWindowMs: 7 * 60 * 60_000 }, 'modelRetryWindowMs', 6 * 60 * 60_000],
    ];
    for (const [limits, limit, agentLimit] of above) {
      const refused = await post('/runs', ALICE, { agent: 'capped', input: 'go', limits });
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'limit_above_agent', limit, agentLimit } } });
      expect(refused.body.error.message).toContain(`limits.${limit}`);
    }
    const listed = await request(`${bed.bridge.url}/runs?agent=capped`, { token: ALICE });
    expect(listed.body.runs).toEqual([]);

    bed.server.scriptFor('You are capped.', text('tight'), text('raised by ops'));
    const tight = await post('/runs', ALICE, { agent: 'capped', input: 'go', limits: { maxSteps: 1 } });
    expect(tight.status).toBe(201);
    expect((await bed.agio.getHandle(tight.body.runId).result()).response).toBe('tight');
    // An operator's admin token may raise them.
    const raised = await post('/runs', OPS, { agent: 'capped', input: 'go', limits: { maxSteps: 3 } });
    expect(raised.status).toBe(201);
    expect((await bed.agio.getHandle(raised.body.runId).result()).response).toBe('raised by ops');
  });
});
