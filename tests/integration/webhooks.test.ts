// Webhooks (docs/ARCHITECTURE.md, "Webhooks") on a real dev server, worker and bridge, to a real HTTP receiver that
// verifies every signature with the Standard Webhooks library: each event type delivered once with a stable id, a
// failing receiver retried with backoff under the same webhook-id, a hanging receiver that does not hold the run, the
// delivery log and resend over HTTP, and webhooks asked for at POST /runs.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { askingAgent, keyOf, waitForAsk, delegatingAgent } from '../helpers/approvals';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/workflow-agents';
import { defineAgent } from '../../common';
import { DeliveryAnswer, WebhookAnswer } from '../../bridge/routes/webhooks';

const ACME = 'acme-admin';
const perRun = defineAgent({ name: 'per-run', instructions: 'You are per-run.' });
const BETA = 'beta-admin';

describe('webhooks', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [perRun],
    bridge: {
      tokens: `${ACME}:acme:ops:start+read+decide+control+admin,${BETA}:beta:ops:start+read+decide+control+admin,beta-reader:beta:dash:read`,
      webhookAllowPrivate: true,
    },
    workerOptions: {
      webhooks: { allowPrivate: true, initialIntervalMs: 400, maxIntervalMs: 2000, attemptTimeoutMs: 1500 },
    },
  });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver?.close());

  const api = (path: string, token: string, init: { method?: string; body?: unknown } = {}) =>
    request(`${bed.bridge.url}${path}`, { token, ...init });

  /** Subscribes `path` on the receiver (verifying with the secret POST /webhooks answered) and returns the webhook. */
  async function subscribe(path: string, token: string, extra: object = {}) {
    const res = await api('/webhooks', token, { body: { url: receiver.url(path), ...extra } });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.verifyWith(path, res.body.secret);
    return res.body as { id: string };
  }

  /** The webhook's deliveries once `count` of them ended, each as its log says. */
  async function settled(id: string, token: string, count: number) {
    return waitFor(`${count} deliveries of ${id} ended`, async () => {
      const { body } = await api(`/webhooks/${id}/deliveries`, token);
      const ended = body.deliveries?.filter((d: { status: string }) => d.status !== 'pending');
      return ended?.length === count && body.deliveries.length === count ? body.deliveries : undefined;
    });
  }

  it('sends each event type once, signed, with an id that is stable and unique per event', async () => {
    const hook = await subscribe('/all', ACME);
    const approved = askingAgent('hooked-approved');
    const expiring = askingAgent('hooked-expiring', {
      permissions: [{ tool: 'record', action: 'ask', expiresAfterMs: 300, onExpiry: 'deny' }],
    });
    const failing = defineAgent({ name: 'hooked-failing', instructions: 'You are hooked-failing.' });
    const paused = defineAgent({ name: 'hooked-paused', instructions: 'You are hooked-paused.', tools: ['record'] });
    bed.server.scriptFor(
      keyOf(approved),
      toolCalls([toolCall('record', { label: 'a' }, { id: 'call_a' })]),
      text('done a'),
    );
    bed.server.scriptFor(
      keyOf(expiring),
      toolCalls([toolCall('record', { label: 'b' }, { id: 'call_b' })]),
      text('done b'),
    );
    bed.server.scriptFor('You are hooked-failing.', { error: { status: 400, body: { error: { message: 'bad' } } } });
    // A slow turn: the pause sent meanwhile parks the run at the safe point after it (RUN_PAUSED is published there).
    bed.server.scriptFor(
      'You are hooked-paused.',
      toolCalls([toolCall('record', { label: 'd' }, { id: 'call_d' })], { firstChunkDelayMs: 1000 }),
    );

    const a = await bed.bridge.agio.start(approved, 'go', { tenant: 'acme' });
    const b = await bed.bridge.agio.start(expiring, 'go', { tenant: 'acme' });
    const c = await bed.bridge.agio.start(failing, 'go', { tenant: 'acme' });
    const d = await bed.bridge.agio.start(paused, 'go', { tenant: 'acme' });
    await waitForAsk(bed.client, a.runId, 'call_a');
    await a.approve('call_a', { by: 'alice' });
    await expect(c.result()).rejects.toThrow();
    await d.pause({ reason: 'change freeze', by: 'ops' }, { wait: false });
    // Sent while the run waits paused (its log is written only when it goes on).
    await waitFor('run.paused received', () => receiver.at('/all').some((r) => r.body.type === 'run.paused'));
    await d.cancel();
    expect((await a.result()).response).toBe('done a');
    expect((await b.result()).response).toBe('done b');

    const deliveries = await settled(hook.id, ACME, 8);
    expect(deliveries.every((x: { status: string }) => x.status === 'succeeded')).toBe(true);
    const got = receiver.at('/all');
    expect(got).toHaveLength(8);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(new Set(got.map((r) => r.id)).size).toBe(8);
    expect(got.every((r) => /^evt_[0-9a-f]{32}$/.test(r.id))).toBe(true);
    const seen = got.map(
      (r) =>
        `${r.body.data.runId === a.runId ? 'a' : r.body.data.runId === b.runId ? 'b' : r.body.data.runId === c.runId ? 'c' : 'd'}:${r.body.type}`,
    );
    expect(seen.sort()).toEqual(
      [
        'a:approval.requested',
        'a:run.completed',
        'b:approval.requested',
        'b:approval.expired',
        'b:run.completed',
        'c:run.failed',
        'd:run.paused',
        'd:run.cancelled',
      ].sort(),
    );
    const body = (run: string, type: string) =>
      got.find((r) => r.body.data.runId === run && r.body.type === type)?.body;
    expect(body(a.runId, 'run.completed')).toMatchObject({
      type: 'run.completed',
      timestamp: expect.stringMatching(/Z$/),
      data: {
        runId: a.runId,
        rootRunId: a.runId,
        agent: 'hooked-approved',
        depth: 0,
        status: 'completed',
        response: 'done a',
      },
    });
    expect(body(a.runId, 'approval.requested').data).toMatchObject({
      toolCallId: 'call_a',
      tool: 'record',
      args: { label: 'a' },
    });
    expect(body(b.runId, 'approval.expired').data).toMatchObject({ toolCallId: 'call_b', action: 'deny' });
    expect(body(c.runId, 'run.failed').data).toMatchObject({ status: 'failed', error: { type: expect.any(String) } });
    expect(body(d.runId, 'run.paused').data).toMatchObject({ reason: 'change freeze', by: 'ops' });
  });

  it('retries a failing receiver with growing delays under the same webhook-id, and logs every attempt', async () => {
    const hook = await subscribe('/flaky', BETA, { agent: 'flaky-agent', events: ['run.completed'] });
    receiver.answer = (path, earlier) => (path === '/flaky' && earlier < 3 ? { status: 503 } : {});
    const agent = defineAgent({ name: 'flaky-agent', instructions: 'You are flaky.' });
    bed.server.scriptFor('You are flaky.', text('fine'));
    const run = await bed.bridge.agio.start(agent, 'go', { tenant: 'beta' });
    await run.result();

    const [delivery] = await settled(hook.id, BETA, 1);
    const got = receiver.at('/flaky');
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    expect(got.every((r) => r.verified)).toBe(true);
    const gaps = got.slice(1).map((r, i) => r.receivedAt - got[i].receivedAt);
    // Exponential backoff from 400 ms (the server's timers may fire late, never early).
    expect(gaps[0]).toBeGreaterThanOrEqual(360);
    expect(gaps[1]).toBeGreaterThanOrEqual(720);
    expect(gaps[2]).toBeGreaterThanOrEqual(1440);
    expect(delivery).toMatchObject({ status: 'succeeded', eventId: got[0].id, eventType: 'run.completed' });
    expect(delivery.attempts.map((x: { status: number }) => x.status)).toEqual([503, 503, 503, 200]);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, error: 'HTTP 503', durationMs: expect.any(Number) });
  });

  it('completes a run while its receiver hangs, and logs the attempts that timed out', async () => {
    const hook = await subscribe('/hang', BETA, { agent: 'hang-agent', events: ['run.completed'] });
    receiver.answer = (path) => (path === '/hang' ? { hang: true } : {});
    bed.server.scriptFor('You are hang.', text('quick'));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'hang-agent', instructions: 'You are hang.' }), 'go', {
      tenant: 'beta',
    });
    await run.result();
    // The receiver has the request and has not answered: the run did not wait for it.
    await waitFor('the hanging receiver got the event', () => receiver.at('/hang').length >= 1);
    const [pending] = (await api(`/webhooks/${hook.id}/deliveries`, BETA)).body.deliveries;
    expect(pending).toMatchObject({ status: 'pending', attempts: [] });
    const timedOut = await waitFor('an attempt timed out', async () => {
      const [d] = (await api(`/webhooks/${hook.id}/deliveries`, BETA)).body.deliveries;
      return d.attempts.length ? d.attempts[0] : undefined;
    });
    expect(timedOut).toMatchObject({ error: 'no answer within 1500 ms' });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(1400);
    expect((await api(`/webhooks/${hook.id}`, BETA, { method: 'DELETE' })).status).toBe(204);
  });

  it('serves the delivery log to readers and resends a delivery as a new one with the same webhook-id', async () => {
    receiver.answer = () => ({});
    const hook = await subscribe('/resend', BETA, { agent: 'resend-agent', events: ['run.completed'] });
    bed.server.scriptFor('You are resend.', text('once'));
    const agent = defineAgent({ name: 'resend-agent', instructions: 'You are resend.' });
    await (await bed.bridge.agio.start(agent, 'go', { tenant: 'beta' })).result();
    const [first] = await settled(hook.id, 'beta-reader', 1);

    expect((await api(`/webhooks/deliveries/${first.id}/resend`, 'beta-reader', { method: 'POST' })).status).toBe(403);
    expect((await api(`/webhooks/deliveries/${first.id}/resend`, ACME, { method: 'POST' })).status).toBe(404);
    const resent = await api(`/webhooks/deliveries/${first.id}/resend`, BETA, { method: 'POST' });
    expect(resent).toMatchObject({ status: 202, body: { deliveryId: expect.stringMatching(/^dlv_/) } });
    const deliveries = await settled(hook.id, BETA, 2);
    expect(deliveries[0]).toMatchObject({ id: resent.body.deliveryId, resendOf: first.id, status: 'succeeded' });
    const got = receiver.at('/resend');
    expect(got.map((r) => r.id)).toEqual([first.eventId, first.eventId]);
    expect(got[1].body).toEqual(got[0].body);
    const one = await api(`/webhooks/deliveries/${first.id}`, 'beta-reader');
    expect(one).toMatchObject({ status: 200, body: { id: first.id, attempts: [{ attempt: 1, status: 200 }] } });
    // Answers hold exactly the documented fields (no tenant, no secret).
    expect(() => DeliveryAnswer.strict().parse(one.body)).not.toThrow();
    const listed = (await api('/webhooks', 'beta-reader')).body.webhooks;
    expect(() => listed.map((w: unknown) => WebhookAnswer.strict().parse(w))).not.toThrow();
  });

  it('takes webhooks at POST /runs for that run only, with their secrets in the answer', async () => {
    bed.server.scriptFor('You are per-run.', text('mine'), text('theirs'));
    const start = (webhooks?: object[]) =>
      api('/runs', BETA, { body: { agent: 'per-run', input: 'go', ...(webhooks ? { webhooks } : {}) } });
    const res = await start([{ url: receiver.url('/run'), events: ['run.completed'] }]);
    expect(res.status).toBe(201);
    expect(res.body.webhooks).toEqual([
      {
        id: expect.stringMatching(/^whk_/),
        url: receiver.url('/run'),
        events: ['run.completed'],
        secret: expect.stringMatching(/^whsec_/),
      },
    ]);
    receiver.verifyWith('/run', res.body.webhooks[0].secret);
    await bed.bridge.agio.getHandle(res.body.runId).result();
    const other = await start();
    await bed.bridge.agio.getHandle(other.body.runId).result();
    await settled(res.body.webhooks[0].id, BETA, 1);
    expect(receiver.at('/run').map((r) => [r.verified, r.body.data.runId])).toEqual([[true, res.body.runId]]);
  });

  it('is driven from the CLI: agio webhooks create, deliveries and delete', async () => {
    const root = path.resolve(__dirname, '../..');
    const agio = async (...args: string[]) => {
      const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: BETA };
      const tsx = path.join(root, 'node_modules/.bin/tsx');
      return JSON.parse((await promisify(execFile)(tsx, ['cli/main.ts', ...args], { cwd: root, env })).stdout);
    };
    const created = await agio(
      'webhooks',
      'create',
      receiver.url('/cli'),
      '--event',
      'run.completed',
      '--agent',
      'cli-agent',
    );
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      events: ['run.completed'],
      agent: 'cli-agent',
    });
    receiver.verifyWith('/cli', created.secret);
    bed.server.scriptFor('You are cli.', text('by cli'));
    await (
      await bed.bridge.agio.start(defineAgent({ name: 'cli-agent', instructions: 'You are cli.' }), 'go', {
        tenant: 'beta',
      })
    ).result();
    await settled(created.id, BETA, 1);
    const { deliveries } = await agio('webhooks', 'deliveries', created.id);
    expect(deliveries).toEqual([
      expect.objectContaining({ status: 'succeeded', attempts: [expect.objectContaining({ status: 200 })] }),
    ]);
    expect(receiver.at('/cli').map((r) => r.verified)).toEqual([true]);
    expect(await agio('webhooks', 'delete', created.id)).toEqual({ id: created.id, deleted: true });
  });

  it("sends a nested run's approval once, and its end only to subscriptions that ask for nested runs", async () => {
    const child = askingAgent('hooked-child');
    const parent = delegatingAgent('hooked-parent', child, 'Delegates.');
    const roots = await subscribe('/roots', BETA);
    const all = await subscribe('/nested', BETA, { includeNested: true });
    bed.server.scriptFor(
      'You are hooked-parent.',
      toolCalls([toolCall('hooked-child', { task: 't' }, { id: 'call_c' })]),
      text('parent done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'n' }, { id: 'call_n' })]),
      text('child done'),
    );
    const run = await bed.bridge.agio.start(parent, 'go', { tenant: 'beta' });
    await waitForAsk(bed.client, run.runId, 'call_n');
    await run.approve('call_n');
    await run.result();
    await settled(roots.id, BETA, 2);
    await settled(all.id, BETA, 3);
    const seen = (path: string) =>
      receiver
        .at(path)
        .map((r) => `${r.body.data.depth}:${r.body.type}`)
        .sort();
    expect(seen('/roots')).toEqual(['0:run.completed', '1:approval.requested']);
    expect(seen('/nested')).toEqual(['0:run.completed', '1:approval.requested', '1:run.completed']);
    expect(receiver.at('/nested').every((r) => r.verified)).toBe(true);
  });

  it('disables a subscription whose receiver answers 410 Gone, and never follows a redirect', async () => {
    const gone = await subscribe('/gone', BETA, { agent: 'edge-agent', events: ['run.completed'] });
    const moved = await subscribe('/moved', BETA, { agent: 'edge-agent', events: ['run.completed'] });
    receiver.answer = (path, earlier) =>
      path === '/gone'
        ? { status: 410 }
        : path === '/moved' && earlier === 0
          ? { status: 302, headers: { location: receiver.url('/target') } }
          : {};
    bed.server.scriptFor('You are edge.', text('first'), text('second'));
    const edge = defineAgent({ name: 'edge-agent', instructions: 'You are edge.' });
    await (await bed.bridge.agio.start(edge, 'go', { tenant: 'beta' })).result();
    const [goneDelivery] = await settled(gone.id, BETA, 1);
    expect(goneDelivery).toMatchObject({ status: 'failed', attempts: [{ attempt: 1, status: 410 }] });
    expect((await api(`/webhooks/${gone.id}`, BETA)).body.disabled).toMatchObject({
      reason: expect.stringMatching(/410/),
    });
    const [movedDelivery] = await settled(moved.id, BETA, 1);
    expect(movedDelivery.attempts.map((a: { status: number }) => a.status)).toEqual([302, 200]);
    expect(receiver.at('/target')).toEqual([]);

    // A disabled subscription is sent nothing more.
    await (await bed.bridge.agio.start(edge, 'go', { tenant: 'beta' })).result();
    await settled(moved.id, BETA, 2);
    expect(receiver.at('/gone')).toHaveLength(1);
  });
});
