// Webhooks' doors, tested as an attacker would (docs/ARCHITECTURE.md, "Webhooks"), with a bridge and a worker that keep
// the default policy (no loopback or private destinations): URLs pointing inside refused at creation (POST /webhooks
// and POST /runs), a destination that resolves inside refused again at delivery, bad bodies and ids, missing scopes,
// another tenant's webhooks and deliveries out of reach, and secrets never shown after creation.
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/workflow-agents';

const ADMIN_A = 'a-admin';
const READ_A = 'a-reader';
const ADMIN_B = 'b-admin';
/** A public address nothing here sends to: subscriptions to it are made in a tenant that runs nothing. */
const PUBLIC_URL = 'https://203.0.114.9/hook';
const agent = defineAgent({ name: 'inside', instructions: 'You are inside.' });

describe('webhook doors', () => {
  const bed = useTestBed({
    agents: [agent],
    bridge: {
      tokens: `${ADMIN_A}:tenant-a:ops:start+read+admin,${READ_A}:tenant-a:dash:read,${ADMIN_B}:tenant-b:ops:start+read+admin,runner:tenant-r:ops:start+read`,
      webhookAllowPrivate: false,
    },
    workerOptions: { webhooks: { allowPrivate: false, initialIntervalMs: 200, attemptTimeoutMs: 1000 } },
  });
  const api = (path: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) =>
    request(`${bed.bridge.url}${path}`, { ...(token ? { token } : {}), ...init });

  it('refuses URLs that point at loopback, private, link-local or reserved addresses, or are not http(s)', async () => {
    const inside = [
      'http://127.0.0.1:9/x',
      'http://localhost:9/',
      'http://localhost.:9/',
      'http://api.localhost/',
      'http://127.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://0.0.0.0/',
      'http://[::1]/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://224.0.0.1/',
    ];
    for (const url of inside) {
      const res = await api('/webhooks', ADMIN_A, { body: { url } });
      expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'webhook_url_refused']);
    }
    for (const url of [
      'file:///etc/passwd',
      'ftp://203.0.114.9/',
      'gopher://203.0.114.9:25/',
      'javascript:alert(1)',
      '/relative',
    ]) {
      const res = await api('/webhooks', ADMIN_A, { body: { url } });
      expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'invalid_request']);
    }
    const withCredentials = await api('/webhooks', ADMIN_A, { body: { url: 'https://u:p@203.0.114.9/' } });
    expect(withCredentials).toMatchObject({ status: 400, body: { error: { code: 'webhook_url_refused' } } });
    const atStart = await api('/runs', 'runner', {
      body: { agent: 'inside', input: 'go', webhooks: [{ url: 'http://169.254.169.254/' }] },
    });
    expect(atStart).toMatchObject({ status: 400, body: { error: { code: 'webhook_url_refused' } } });
    expect(atStart.body.error.message).toMatch(/^webhooks\.0\.url:/);
    expect((await api('/webhooks', ADMIN_A)).body).toEqual({ webhooks: [] });
  });

  it('refuses at delivery a destination that resolves inside, without calling it', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      // As if its name had resolved elsewhere when it was created: the worker checks the address it connects to.
      const stored = {
        id: 'whk_rebinding',
        tenant: 'tenant-r',
        url: `http://localhost:${receiver.port}/in`,
        events: ['run.completed' as const],
        secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
        createdAt: Date.now(),
      };
      await bed.worker.stores.webhooks.createSubscription(stored);
      bed.server.scriptFor('You are inside.', text('done'));
      await (await bed.agio.start(agent, 'go', { tenant: 'tenant-r' })).result();
      const [delivery] = await waitFor('the delivery failed', async () => {
        const list = await bed.worker.stores.webhooks.listDeliveries('tenant-r', stored.id, 5);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0].error).toMatch(/localhost \(127\.0\.0\.1\) is a loopback, private/);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('refuses bad bodies and ids', async () => {
    const bad = [
      {},
      { url: PUBLIC_URL, extra: 1 },
      { url: PUBLIC_URL, events: ['run.started'] },
      { url: PUBLIC_URL, events: [] },
      { url: PUBLIC_URL, agent: 'a b' },
      { url: PUBLIC_URL, rootRunId: '$where' },
      { url: PUBLIC_URL, includeNested: 'yes' },
      { url: PUBLIC_URL, description: 'x'.repeat(300) },
      { url: `https://203.0.114.9/${'x'.repeat(2100)}` },
      { url: { $ne: null } },
    ];
    for (const body of bad) expect((await api('/webhooks', ADMIN_A, { body })).status).toBe(400);
    expect((await api('/webhooks', ADMIN_A, { body: '{"url":' })).status).toBe(400);
    expect((await api('/webhooks/not-an-id', ADMIN_A)).status).toBe(400);
    expect((await api('/webhooks/whk_nope', ADMIN_A)).body.error.code).toBe('webhook_not_found');
    expect(await api('/webhooks/whk_nope/deliveries', ADMIN_A)).toMatchObject({
      status: 404,
      body: { error: { code: 'webhook_not_found' } },
    });
    expect((await api('/webhooks/deliveries/dlv_x/resend', ADMIN_A, { method: 'POST' })).status).toBe(400);
    const unknown = `/webhooks/deliveries/dlv_${'0'.repeat(32)}`;
    expect((await api(unknown, ADMIN_A)).body.error.code).toBe('delivery_not_found');
    expect((await api('/webhooks/whk_x/deliveries?limit=0', ADMIN_A)).status).toBe(400);
    const tooMany = await api('/runs', 'runner', {
      body: { agent: 'inside', input: 'go', webhooks: Array(6).fill({ url: PUBLIC_URL }) },
    });
    expect(tooMany.status).toBe(400);
  });

  it('keeps each tenant to its own webhooks, asks admin to change them, and shows a secret only once', async () => {
    expect((await api('/webhooks', undefined)).status).toBe(401);
    expect(await api('/webhooks', READ_A, { body: { url: PUBLIC_URL } })).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden', scope: 'admin' } },
    });
    const created = await api('/webhooks', ADMIN_A, { body: { url: PUBLIC_URL, events: ['approval.requested'] } });
    expect(created).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^whk_/), secret: expect.any(String) },
    });
    const { id, secret } = created.body;

    const listed = await api('/webhooks', READ_A);
    expect(listed.body.webhooks).toEqual([
      expect.objectContaining({ id, url: PUBLIC_URL, events: ['approval.requested'] }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify((await api(`/webhooks/${id}`, READ_A)).body)).not.toContain(secret);

    expect((await api('/webhooks', ADMIN_B)).body).toEqual({ webhooks: [] });
    expect((await api(`/webhooks/${id}`, ADMIN_B)).status).toBe(404);
    expect((await api(`/webhooks/${id}/deliveries`, READ_A)).body).toEqual({ deliveries: [] });
    expect((await api(`/webhooks/${id}/deliveries`, ADMIN_B)).body.error.code).toBe('webhook_not_found');
    expect((await api(`/webhooks/${id}`, ADMIN_B, { method: 'DELETE' })).status).toBe(404);
    expect((await api(`/webhooks/${id}`, READ_A, { method: 'DELETE' })).status).toBe(403);
    expect((await api(`/webhooks/${id}`, ADMIN_A, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/webhooks/${id}`, ADMIN_A)).status).toBe(404);
  });
});
