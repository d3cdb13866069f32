// Webhook subscriptions and their delivery log for operators and the bridge (AgioClient.webhooks(store)): create
// (the signing secret is answered once), list, delete, read deliveries with their attempts, and resend one.
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  MAX_WEBHOOKS_PER_TENANT,
  WEBHOOK_DELIVERY_WORKFLOW,
  WEBHOOK_EVENT_TYPES,
  webhookStartOptions,
  type CreateWebhookRequest,
} from '../common/webhooks';
import type { WebhookDelivery, WebhookStore, WebhookSubscription } from '../stores/webhooks';

/** A subscription as callers see it: everything but its secret (and its tenant, the caller's own). */
export type WebhookView = Omit<WebhookSubscription, 'secret' | 'tenant'>;

/** A delivery as callers see it (without its tenant, the caller's own). */
export type WebhookDeliveryView = Omit<WebhookDelivery, 'tenant'>;

/** The view of a delivery. */
function deliveryView({ tenant: _tenant, ...delivery }: WebhookDelivery): WebhookDeliveryView {
  return delivery;
}

/** A subscription just created, with its secret (shown this once). */
export type CreatedWebhook = WebhookView & { secret: string };

/** A webhook request the client refuses (too many, unknown): `code` is the bridge's error code. */
export class WebhookRequestError extends Error {
  constructor(
    readonly code: 'webhook_limit' | 'webhook_not_found' | 'delivery_not_found',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The view of a subscription (without its secret). */
export function webhookView(sub: WebhookSubscription): WebhookView {
  const { secret: _secret, tenant: _tenant, ...view } = sub;
  return view;
}

/** Webhooks of one store, deliveries started on one task queue (the workers'). */
export class WebhooksClient {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
    readonly store: WebhookStore,
  ) {}

  /** Creates a subscription of `tenant` (`id`: a caller's own, for idempotent creation; default a new one). */
  async create(tenant: string, request: CreateWebhookRequest, id?: string): Promise<CreatedWebhook | undefined> {
    if (!request.rootRunId) {
      const wide = (await this.store.listSubscriptions(tenant)).filter((s) => s.rootRunId === undefined);
      if (wide.length >= MAX_WEBHOOKS_PER_TENANT)
        throw new WebhookRequestError('webhook_limit', `a tenant has at most ${MAX_WEBHOOKS_PER_TENANT} webhooks`);
    }
    const sub: WebhookSubscription = {
      id: id ?? `whk_${randomUUID().replace(/-/g, '')}`,
      tenant,
      url: request.url,
      events: [...(request.events ?? WEBHOOK_EVENT_TYPES)],
      ...(request.agent ? { agent: request.agent } : {}),
      ...(request.rootRunId ? { rootRunId: request.rootRunId } : {}),
      ...(request.includeNested ? { includeNested: true } : {}),
      ...(request.description ? { description: request.description } : {}),
      secret: newWebhookSecret(),
      createdAt: Date.now(),
    };
    if (!(await this.store.createSubscription(sub))) return undefined;
    return { ...webhookView(sub), secret: sub.secret };
  }

  /** The tenant's subscriptions (`rootRunId`: those of one run's tree). */
  async list(tenant: string, filter: { rootRunId?: string } = {}): Promise<WebhookView[]> {
    return (await this.store.listSubscriptions(tenant, filter)).map(webhookView);
  }

  /** One subscription; throws WebhookRequestError when the tenant has none by that id. */
  async get(tenant: string, id: string): Promise<WebhookView> {
    const sub = await this.store.getSubscription(tenant, id);
    if (!sub) throw notFound(id);
    return webhookView(sub);
  }

  /** Deletes a subscription: deliveries under way end at their next attempt; its log stays readable. */
  async remove(tenant: string, id: string): Promise<void> {
    if (!(await this.store.deleteSubscription(tenant, id))) throw notFound(id);
  }

  /** A subscription's deliveries with their attempts, newest first. */
  async deliveries(tenant: string, id: string, limit = 50): Promise<WebhookDeliveryView[]> {
    return (await this.store.listDeliveries(tenant, id, limit)).map(deliveryView);
  }

  /** One delivery with its attempts. */
  async delivery(tenant: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const d = await this.store.getDelivery(tenant, deliveryId);
    if (!d) throw new WebhookRequestError('delivery_not_found', `no delivery with id "${deliveryId}"`);
    return deliveryView(d);
  }

  /**
   * Sends a delivery's event again, as a new delivery with attempts of its own: the same event id (`webhook-id`), so
   * a receiver that took it already can tell. The subscription must still exist (and is not re-enabled).
   */
  async resend(tenant: string, deliveryId: string): Promise<{ deliveryId: string }> {
    const d = await this.delivery(tenant, deliveryId);
    await this.get(tenant, d.subscriptionId);
    const input = {
      tenant,
      subscriptionId: d.subscriptionId,
      deliveryId: `dlv_${randomUUID().replace(/-/g, '')}`,
      event: { id: d.eventId, type: d.eventType, runId: d.runId, body: d.body },
      resendOf: d.id,
    };
    try {
      await this.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, webhookStartOptions(this.taskQueue, input));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return { deliveryId: input.deliveryId };
  }
}

function notFound(id: string): WebhookRequestError {
  return new WebhookRequestError('webhook_not_found', `no webhook with id "${id}"`);
}
