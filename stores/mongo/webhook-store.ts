// WebhookStore on MongoDB: collections `webhooks` (subscriptions), `webhook_deliveries` and `webhook_attempts` (one
// document per attempt under a unique index, so a retried write adds nothing).
import type { Collection, MongoClient } from 'mongodb';
import { isId } from '../records';
import type { WebhookAttempt, WebhookDelivery, WebhookStore, WebhookSubscription } from '../webhooks';
import { STORE_FIELDS, insertOnce, isDuplicateKeyError, storeCollection, type MongoStoreOptions } from './collections';

type AttemptDoc = WebhookAttempt & { tenant: string; deliveryId: string };
type DeliveryDoc = Omit<WebhookDelivery, 'attempts'>;

/** Webhooks in MongoDB. */
export class MongoWebhookStore implements WebhookStore {
  private readonly subs: Collection<WebhookSubscription>;
  private readonly deliveries: Collection<DeliveryDoc>;
  private readonly attempts: Collection<AttemptDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.subs = storeCollection(client, opts, 'webhooks');
    this.deliveries = storeCollection(client, opts, 'webhook_deliveries');
    this.attempts = storeCollection(client, opts, 'webhook_attempts');
  }

  /** Creates the indexes the writes and reads rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.subs.createIndex({ tenant: 1, id: 1 }, { unique: true });
    await this.subs.createIndex({ tenant: 1, rootRunId: 1 });
    await this.deliveries.createIndex({ tenant: 1, id: 1 }, { unique: true });
    await this.deliveries.createIndex({ tenant: 1, subscriptionId: 1, createdAt: -1 });
    await this.attempts.createIndex({ tenant: 1, deliveryId: 1, attempt: 1 }, { unique: true });
  }

  async createSubscription(sub: WebhookSubscription): Promise<boolean> {
    try {
      await this.subs.insertOne({ ...sub });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async getSubscription(tenant: string, id: string): Promise<WebhookSubscription | undefined> {
    if (!isId(tenant) || !isId(id)) return undefined;
    return (await this.subs.findOne({ tenant, id }, { projection: { _id: 0 } })) ?? undefined;
  }

  async listSubscriptions(tenant: string, filter: { rootRunId?: string } = {}): Promise<WebhookSubscription[]> {
    if (!isId(tenant) || (filter.rootRunId !== undefined && !isId(filter.rootRunId))) return [];
    const query = filter.rootRunId === undefined ? { tenant } : { tenant, rootRunId: filter.rootRunId };
    return this.subs
      .find(query, { projection: { _id: 0 } })
      .sort({ createdAt: 1 })
      .toArray();
  }

  async matchSubscriptions(tenant: string, rootRunId: string): Promise<WebhookSubscription[]> {
    if (!isId(tenant) || !isId(rootRunId)) return [];
    // Two plain queries rather than an $or over a missing field, which FerretDB plans poorly.
    const [tree, wide] = await Promise.all([
      this.subs.find({ tenant, rootRunId }, { projection: { _id: 0 } }).toArray(),
      this.subs.find({ tenant, rootRunId: { $exists: false } }, { projection: { _id: 0 } }).toArray(),
    ]);
    return [...tree, ...wide].filter((s) => !s.disabled);
  }

  async deleteSubscription(tenant: string, id: string): Promise<boolean> {
    if (!isId(tenant) || !isId(id)) return false;
    return (await this.subs.deleteOne({ tenant, id })).deletedCount > 0;
  }

  async disableSubscription(tenant: string, id: string, reason: string, at: number): Promise<void> {
    if (!isId(tenant) || !isId(id)) return;
    await this.subs.updateOne({ tenant, id, disabled: { $exists: false } }, { $set: { disabled: { at, reason } } });
  }

  async recordDelivery(delivery: Omit<WebhookDelivery, 'attempts' | 'status'>): Promise<void> {
    await insertOnce(this.deliveries, [{ ...delivery, status: 'pending' as const }]);
  }

  async addAttempt(tenant: string, deliveryId: string, attempt: WebhookAttempt): Promise<void> {
    await insertOnce(this.attempts, [{ ...attempt, tenant, deliveryId }]);
  }

  async finishDelivery(tenant: string, deliveryId: string, status: 'succeeded' | 'failed', at: number): Promise<void> {
    await this.deliveries.updateOne({ tenant, id: deliveryId }, { $set: { status, endedAt: at } });
  }

  async getDelivery(tenant: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
    if (!isId(tenant) || !isId(deliveryId)) return undefined;
    const doc = await this.deliveries.findOne({ tenant, id: deliveryId }, { projection: { _id: 0 } });
    if (!doc) return undefined;
    return { ...doc, attempts: await this.attemptsOf(tenant, [deliveryId]).then((m) => m.get(deliveryId) ?? []) };
  }

  async listDeliveries(tenant: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    if (!isId(tenant) || !isId(subscriptionId)) return [];
    const docs = await this.deliveries
      .find({ tenant, subscriptionId }, { projection: { _id: 0 } })
      .sort({ createdAt: -1 })
      .limit(limit)
      .toArray();
    const attempts = await this.attemptsOf(
      tenant,
      docs.map((d) => d.id),
    );
    return docs.map((d) => ({ ...d, attempts: attempts.get(d.id) ?? [] }));
  }

  /** The attempts of some deliveries, each list in attempt order. */
  private async attemptsOf(tenant: string, deliveryIds: string[]): Promise<Map<string, WebhookAttempt[]>> {
    const byDelivery = new Map<string, WebhookAttempt[]>();
    if (!deliveryIds.length) return byDelivery;
    const docs = await this.attempts
      .find({ tenant, deliveryId: { $in: deliveryIds } }, { projection: STORE_FIELDS })
      .sort({ attempt: 1 })
      .toArray();
    for (const { deliveryId, ...attempt } of docs) {
      const list = byDelivery.get(deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(deliveryId, list);
    }
    return byDelivery;
  }
}
