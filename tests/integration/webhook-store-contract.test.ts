// The webhook store's contract, run against memory, agio serve's file and MongoDB (the harness's FerretDB):
// subscriptions per tenant
// (a taken id refused, tree and tenant-wide matches, disabled ones left out, deleted), deliveries and their attempts
// written once however often, newest first, tenants apart.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type WebhookStore, type WebhookSubscription } from '../../stores';
import { FileWebhookStore } from '../../stores/file-webhook-store';
import { describeEachStore, storeBackends, type StoreBackend } from '../helpers/store-contract';

const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** A webhook store file of its own in a fresh directory. */
const storeFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agio-webhooks-')), 'webhooks.json');

const backends: StoreBackend<WebhookStore>[] = [
  ...storeBackends((stores) => stores.webhooks),
  ['file (agio serve)', async () => ({ store: new FileWebhookStore(storeFile()), close: async () => undefined })],
];

describeEachStore('webhook store', backends, (store) => {
  const sub = (tenant: string, fields: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
    id: id('whk'),
    tenant,
    url: 'https://example.test/hook',
    events: ['run.completed'],
    secret: 'whsec_c2VjcmV0',
    createdAt: Date.now(),
    ...fields,
  });

  it('keeps subscriptions per tenant, refuses a taken id, and matches the tree and the tenant-wide ones', async () => {
    const tenant = id('t');
    const wide = sub(tenant, { createdAt: 1 });
    const tree = sub(tenant, { rootRunId: 'run-a', createdAt: 2 });
    const otherTree = sub(tenant, { rootRunId: 'run-b', createdAt: 3 });
    const off = sub(tenant, { createdAt: 4 });
    for (const s of [wide, tree, otherTree, off]) expect(await store.createSubscription(s)).toBe(true);
    expect(await store.createSubscription({ ...wide, url: 'https://example.test/else' })).toBe(false);
    await store.createSubscription(sub(id('other'), { id: id('whk') }));
    await store.disableSubscription(tenant, off.id, 'the receiver answered 410 Gone', 5);

    expect((await store.listSubscriptions(tenant)).map((s) => s.id)).toEqual([wide.id, tree.id, otherTree.id, off.id]);
    expect((await store.listSubscriptions(tenant, { rootRunId: 'run-a' })).map((s) => s.id)).toEqual([tree.id]);
    expect((await store.matchSubscriptions(tenant, 'run-a')).map((s) => s.id).sort()).toEqual(
      [wide.id, tree.id].sort(),
    );
    expect(await store.getSubscription(tenant, wide.id)).toEqual(wide);
    expect(await store.getSubscription(tenant, off.id)).toMatchObject({ disabled: { at: 5 } });
    expect(await store.getSubscription(id('other'), wide.id)).toBeUndefined();

    expect(await store.deleteSubscription(id('other'), wide.id)).toBe(false);
    expect(await store.deleteSubscription(tenant, wide.id)).toBe(true);
    expect(await store.deleteSubscription(tenant, wide.id)).toBe(false);
    expect((await store.matchSubscriptions(tenant, 'run-a')).map((s) => s.id)).toEqual([tree.id]);
  });

  it('logs a delivery and each attempt once, newest deliveries first, and how it ended', async () => {
    const tenant = id('t');
    const subscriptionId = id('whk');
    const delivery = (n: number) => ({
      id: id('dlv'),
      tenant,
      subscriptionId,
      eventId: id('evt'),
      eventType: 'run.completed' as const,
      runId: 'run-a',
      body: `{"n":${n}}`,
      createdAt: 1000 + n,
    });
    const first = delivery(1);
    const second = delivery(2);
    await store.recordDelivery(first);
    await store.recordDelivery({ ...first, body: 'changed', createdAt: 9 }); // a later attempt's write
    await store.recordDelivery(second);
    await store.addAttempt(tenant, first.id, { attempt: 2, at: 20, durationMs: 5, status: 200 });
    await store.addAttempt(tenant, first.id, { attempt: 1, at: 10, durationMs: 3, status: 503, error: 'HTTP 503' });
    await store.addAttempt(tenant, first.id, { attempt: 1, at: 11, durationMs: 9, error: 'again' });
    await store.finishDelivery(tenant, first.id, 'succeeded', 30);

    expect(await store.getDelivery(tenant, first.id)).toEqual({
      ...first,
      status: 'succeeded',
      endedAt: 30,
      attempts: [
        { attempt: 1, at: 10, durationMs: 3, status: 503, error: 'HTTP 503' },
        { attempt: 2, at: 20, durationMs: 5, status: 200 },
      ],
    });
    const listed = await store.listDeliveries(tenant, subscriptionId, 10);
    expect(listed.map((d) => [d.id, d.status, d.attempts.length])).toEqual([
      [second.id, 'pending', 0],
      [first.id, 'succeeded', 2],
    ]);
    expect(await store.listDeliveries(tenant, subscriptionId, 1)).toHaveLength(1);
    expect(await store.getDelivery(id('other'), first.id)).toBeUndefined();
    expect(await store.listDeliveries(id('other'), subscriptionId, 10)).toEqual([]);
  });

  it('reads an operator object as no subscription', async () => {
    const op = { $ne: null } as unknown as string;
    expect(await store.getSubscription(op, op)).toBeUndefined();
    expect(await store.listSubscriptions(op)).toEqual([]);
    expect(await store.getDelivery(op, op)).toBeUndefined();
  });
});

describe("agio serve's file webhook store", () => {
  it('holds its subscriptions, secrets and delivery log after it is opened again (a restart of serve)', async () => {
    const file = storeFile();
    const first = new FileWebhookStore(file);
    await first.setup();
    const sub: WebhookSubscription = {
      id: id('whk'),
      tenant: 'acme',
      url: 'https://example.test/hook',
      events: ['run.completed'],
      secret: 'whsec_c2VjcmV0',
      createdAt: Date.now(),
    };
    await first.createSubscription(sub);
    const delivery = { id: id('dlv'), tenant: 'acme', subscriptionId: sub.id, eventId: 'evt_1' };
    await first.recordDelivery({ ...delivery, eventType: 'run.completed', runId: 'run-1', body: '{}', createdAt: 1 });
    await first.addAttempt('acme', delivery.id, { attempt: 1, at: 2, durationMs: 3, status: 503 });
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

    const reopened = new FileWebhookStore(file);
    await reopened.setup();
    expect(await reopened.getSubscription('acme', sub.id)).toEqual(sub);
    expect(await reopened.matchSubscriptions('acme', 'run-2')).toHaveLength(1);
    expect(await reopened.getDelivery('acme', delivery.id)).toMatchObject({
      status: 'pending',
      attempts: [{ status: 503 }],
    });
    expect(await reopened.getSubscription('other', sub.id)).toBeUndefined();
  });

  it('refuses to start over a file it cannot read, overwriting nothing', async () => {
    const file = storeFile();
    fs.writeFileSync(file, '{ not json');
    await expect(new FileWebhookStore(file).setup()).rejects.toThrow(/not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ not json');
  });
});
