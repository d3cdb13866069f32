// WebhookStore in memory: subscriptions and deliveries per tenant, attempts inside their delivery.
import type { WebhookAttempt, WebhookDelivery, WebhookStore, WebhookSubscription } from '../webhooks';
import { TenantMap } from './tenant-map';

/** What a memory webhook store holds, as plain data (see stores/file-webhook-store.ts). */
export interface WebhookSnapshot {
  subscriptions: [string, [string, WebhookSubscription][]][];
  deliveries: [string, [string, WebhookDelivery][]][];
}

/** Webhooks in Maps; lost when the process exits. */
export class MemoryWebhookStore implements WebhookStore {
  protected readonly subs = new TenantMap<WebhookSubscription>();
  protected readonly deliveries = new TenantMap<WebhookDelivery>();

  /** Everything it holds, as plain data. */
  snapshot(): WebhookSnapshot {
    return { subscriptions: this.subs.entries(), deliveries: this.deliveries.entries() };
  }

  /** Replaces everything it holds with a snapshot. */
  restore(snapshot: WebhookSnapshot): void {
    this.subs.load(snapshot.subscriptions);
    this.deliveries.load(snapshot.deliveries);
  }

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async createSubscription(sub: WebhookSubscription): Promise<boolean> {
    if (this.subs.has(sub.tenant, sub.id)) return false;
    this.subs.set(sub.tenant, sub.id, sub);
    return true;
  }

  async getSubscription(tenant: string, id: string): Promise<WebhookSubscription | undefined> {
    return this.subs.get(tenant, id);
  }

  async listSubscriptions(tenant: string, filter: { rootRunId?: string } = {}): Promise<WebhookSubscription[]> {
    return this.subs.filter(tenant, (s) => filter.rootRunId === undefined || s.rootRunId === filter.rootRunId);
  }

  async matchSubscriptions(tenant: string, rootRunId: string): Promise<WebhookSubscription[]> {
    return this.subs.filter(tenant, (s) => !s.disabled && (s.rootRunId === undefined || s.rootRunId === rootRunId));
  }

  async deleteSubscription(tenant: string, id: string): Promise<boolean> {
    return this.subs.delete(tenant, id);
  }

  async disableSubscription(tenant: string, id: string, reason: string, at: number): Promise<void> {
    const sub = this.subs.get(tenant, id);
    if (sub && !sub.disabled) this.subs.set(tenant, id, { ...sub, disabled: { at, reason } });
  }

  async recordDelivery(delivery: Omit<WebhookDelivery, 'attempts' | 'status'>): Promise<void> {
    if (!this.deliveries.has(delivery.tenant, delivery.id))
      this.deliveries.set(delivery.tenant, delivery.id, { ...delivery, status: 'pending', attempts: [] });
  }

  async addAttempt(tenant: string, deliveryId: string, attempt: WebhookAttempt): Promise<void> {
    const d = this.deliveries.get(tenant, deliveryId);
    if (!d || d.attempts.some((a) => a.attempt === attempt.attempt)) return;
    d.attempts = [...d.attempts, attempt].sort((a, b) => a.attempt - b.attempt);
    this.deliveries.set(tenant, deliveryId, d);
  }

  async finishDelivery(tenant: string, deliveryId: string, status: 'succeeded' | 'failed', at: number): Promise<void> {
    const d = this.deliveries.get(tenant, deliveryId);
    if (d) this.deliveries.set(tenant, deliveryId, { ...d, status, endedAt: at });
  }

  async getDelivery(tenant: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
    return this.deliveries.get(tenant, deliveryId);
  }

  async listDeliveries(tenant: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    return this.deliveries
      .filter(tenant, (d) => d.subscriptionId === subscriptionId)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
  }
}
