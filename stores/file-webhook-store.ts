// WebhookStore for `agio serve` without MongoDB: the memory store, saved to a file in the data directory after every
// change, so subscriptions, their secrets and the delivery log outlive a restart of serve (the deliveries themselves
// are Temporal workflows, which the dev server keeps in its own database, and read their subscription at each attempt).
import fs from 'node:fs';
import path from 'node:path';
import type { WebhookAttempt, WebhookDelivery, WebhookSubscription } from './webhooks';
import { MemoryWebhookStore, type WebhookSnapshot } from './memory/webhook-store';

/** Deliveries the file keeps per tenant, newest first (older ones leave the log; subscriptions all stay). */
export const FILE_DELIVERIES_KEPT = 1000;

/** The memory webhook store, written through to a JSON file (0600, replaced atomically). */
export class FileWebhookStore extends MemoryWebhookStore {
  /** Writes, one at a time and in order; each change resolves once it is on disk. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {
    super();
  }

  /** Reads the file, if there is one; a file that cannot be read is an error (nothing is overwritten). */
  override async setup(): Promise<void> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      this.restore(JSON.parse(text) as WebhookSnapshot);
    } catch (err) {
      throw new Error(`the webhook store ${this.file} is not valid JSON (${(err as Error).message}): move it away`);
    }
  }

  override async createSubscription(sub: WebhookSubscription): Promise<boolean> {
    return this.saved(await super.createSubscription(sub));
  }

  override async deleteSubscription(tenant: string, id: string): Promise<boolean> {
    return this.saved(await super.deleteSubscription(tenant, id));
  }

  override async disableSubscription(tenant: string, id: string, reason: string, at: number): Promise<void> {
    await super.disableSubscription(tenant, id, reason, at);
    await this.saved(undefined);
  }

  override async recordDelivery(delivery: Omit<WebhookDelivery, 'attempts' | 'status'>): Promise<void> {
    await super.recordDelivery(delivery);
    await this.saved(undefined);
  }

  override async addAttempt(tenant: string, deliveryId: string, attempt: WebhookAttempt): Promise<void> {
    await super.addAttempt(tenant, deliveryId, attempt);
    await this.saved(undefined);
  }

  override async finishDelivery(
    tenant: string,
    deliveryId: string,
    status: 'succeeded' | 'failed',
    at: number,
  ): Promise<void> {
    await super.finishDelivery(tenant, deliveryId, status, at);
    await this.saved(undefined);
  }

  /** Writes the store to its file (after the writes before it), then answers `result`. */
  private async saved<T>(result: T): Promise<T> {
    const write = this.writing.then(() => this.write());
    this.writing = write.catch(() => undefined);
    await write;
    return result;
  }

  private async write(): Promise<void> {
    const snapshot = this.snapshot();
    snapshot.deliveries = snapshot.deliveries.map(([tenant, deliveries]) => [
      tenant,
      deliveries.sort(([, a], [, b]) => b.createdAt - a.createdAt).slice(0, FILE_DELIVERIES_KEPT),
    ]);
    const temporary = `${this.file}.${process.pid}.tmp`;
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    await fs.promises.writeFile(temporary, JSON.stringify(snapshot), { mode: 0o600 });
    await fs.promises.rename(temporary, this.file);
  }
}
