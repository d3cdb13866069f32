// Approvals that expire with an action (docs/ARCHITECTURE.md, "Approvals") on a real dev server, worker and bridge:
// deny (TOOL_AUTH_EXPIRED, then denied as a timeout), escalate (a new binding, decided only by the role's token),
// and pause (the run pauses with reason approval_expired, the call keeps waiting across resume and is then decided).
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import type { PermissionRule } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import {
  askingAgent,
  authData,
  authTrail,
  decide,
  keyOf,
  recordsOf,
  waitForAsk,
  waitForAuth,
  waitForInbox,
} from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const ALICE = 'alice-token';
const LEAD = 'lead-token';
const expiring = (onExpiry: PermissionRule['onExpiry'], extra: Partial<PermissionRule> = {}): PermissionRule[] => [
  { tool: 'record', action: 'ask', expiresAfterMs: 1000, onExpiry, ...extra },
];
const pauser = askingAgent('expiry-pauser');

describe('approvals that expire', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [pauser],
    bridge: { tokens: `${ALICE}:acme:alice,${LEAD}:acme:bob::lead` },
  });

  it('denies a call nobody decided in time, publishing TOOL_AUTH_EXPIRED first', async () => {
    const agent = askingAgent('expiry-denier', { permissions: expiring('deny') });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'late' }, { id: 'call_d' })]),
      text('told no'),
    );
    const run = await bed.bridge.agio.start(agent, 'record', { tenant: 'acme' });
    const asked = authData(await waitForAsk(bed.client, run.runId, 'call_d'));
    expect(asked).toMatchObject({ onExpiry: 'deny', binding: expect.stringMatching(/\.0$/) });

    expect((await run.result()).response).toBe('told no');
    const events = await readStream(bed.client, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_d'],
      ['TOOL_AUTH_EXPIRED', 'call_d'],
      ['TOOL_AUTH_DENIED', 'call_d'],
    ]);
    expect(events.find((e) => e.type === 'TOOL_AUTH_EXPIRED')?.data).toMatchObject({
      action: 'deny',
      expiredAt: expect.any(Number),
    });
    expect(events.find((e) => e.type === 'TOOL_AUTH_DENIED')?.data).toMatchObject({ reason: 'timeout' });
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_d')).toMatch(/not approved within 1 s/);
    expect(recordsOf(run.runId)).toEqual([]);
  });

  it('escalates to a role: the call waits on, decided only by that role quoting its new binding', async () => {
    const agent = askingAgent('expiry-escalator', { permissions: expiring('escalate', { escalateTo: 'lead' }) });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'escalated' }, { id: 'call_e' })]),
      text('lead said yes'),
    );
    const run = await bed.bridge.agio.start(agent, 'record', { tenant: 'acme' });
    const first = authData(await waitForAsk(bed.client, run.runId, 'call_e')).binding!;
    const expired = authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_EXPIRED', 'call_e'));
    expect(expired).toMatchObject({ action: 'escalate', escalatedTo: 'lead', binding: expect.stringMatching(/\.1$/) });
    expect(expired.binding).not.toBe(first);

    const [item] = await waitForInbox(bed.bridge, ALICE, (items) => items[0]?.escalatedTo === 'lead', {
      rootRunId: run.runId,
    });
    expect(item).toMatchObject({ binding: expired.binding, onExpiry: 'deny', expired: { action: 'escalate' } });
    // The old approver may no longer decide it, even quoting the new binding; the lead may not with the old one.
    const byAlice = await decide(bed.bridge, ALICE, run.runId, 'call_e', 'approve', { binding: item.binding });
    expect(byAlice).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    expect(byAlice.body.error.message).toMatch(/escalated to role "lead"/);
    const stale = await decide(bed.bridge, LEAD, run.runId, 'call_e', 'approve', { binding: first });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'stale_binding' } } });
    expect((await decide(bed.bridge, LEAD, run.runId, 'call_e', 'approve')).status).toBe(409);
    expect(await decide(bed.bridge, LEAD, run.runId, 'call_e', 'approve', { binding: item.binding })).toEqual({
      status: 200,
      body: { toolCallId: 'call_e', decision: 'approve' },
    });

    expect((await run.result()).response).toBe('lead said yes');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['escalated']);
    const granted = authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_e'));
    expect(granted.by).toBe('bob');
  });

  it('pauses the run (a per-run rule over HTTP) and keeps the call waiting across resume until decided', async () => {
    bed.server.scriptFor(
      keyOf(pauser),
      toolCalls([toolCall('record', { label: 'after pause' }, { id: 'call_p' })]),
      text('decided after the pause'),
    );
    const started = await request(`${bed.bridge.url}/runs`, {
      token: ALICE,
      body: { agent: pauser.name, input: 'record', permissions: expiring('pause') },
    });
    expect(started.status).toBe(201);
    const run = bed.bridge.agio.getHandle(started.body.runId as string);
    expect(authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_EXPIRED', 'call_p')).action).toBe('pause');

    expect(await run.state()).toMatchObject({
      paused: true,
      pauseReason: 'approval_expired',
      pausedBy: 'agio',
      pendingApprovals: [{ toolCallId: 'call_p', expired: { action: 'pause' } }],
    });
    const [item] = await waitForInbox(bed.bridge, ALICE, (items) => items[0]?.paused === true, {
      rootRunId: run.runId,
    });
    expect(item).toMatchObject({ pauseReason: 'approval_expired', expired: { action: 'pause' } });
    expect(item.expiresAt).toBeUndefined();

    expect((await request(`${bed.bridge.url}/runs/${run.runId}/resume`, { token: ALICE, body: {} })).status).toBe(200);
    expect(await run.state()).toMatchObject({ paused: false, pendingApprovals: [{ toolCallId: 'call_p' }] });
    expect((await decide(bed.bridge, ALICE, run.runId, 'call_p', 'approve', { binding: item.binding })).status).toBe(
      200,
    );
    expect((await run.result()).response).toBe('decided after the pause');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['after pause']);
  });

  it("refuses an escalation without a role in a per-run rule; GET /whoami names a token's roles", async () => {
    expect((await request(`${bed.bridge.url}/whoami`, { token: LEAD })).body).toEqual({
      tenant: 'acme',
      identity: 'bob',
      scopes: ['start', 'read', 'decide', 'control'],
      roles: ['lead'],
    });
    const { status, body } = await request(`${bed.bridge.url}/runs`, {
      token: ALICE,
      body: { agent: pauser.name, input: 'x', permissions: expiring('escalate') },
    });
    expect([status, body.error.code, body.error.message]).toEqual([
      400,
      'invalid_request',
      expect.stringMatching(/escalateTo/),
    ]);
  });
});
