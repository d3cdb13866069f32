// The webhook store's contract: tenants' subscriptions (with their signing secrets) and the delivery log, each
// attempt of each delivery with its time, answer and duration (docs/ARCHITECTURE.md, "Webhooks").
import type { WebhookDeliveryStatus, WebhookEventType } from '../common/webhooks';

/** A tenant's subscription. */
export interface WebhookSubscription {
  /** `whk_…` */
  id: string;
  tenant: string;
  url: string;
  /** The types it receives. */
  events: WebhookEventType[];
  agent?: string;
  rootRunId?: string;
  includeNested?: boolean;
  description?: string;
  /** `whsec_<base64>`: shown once, when created. */
  secret: string;
  createdAt: number;
  /** Set when a receiver answered 410 Gone: nothing more is sent to it. */
  disabled?: { at: number; reason: string };
}

/** One attempt of a delivery. */
export interface WebhookAttempt {
  /** From 1. */
  attempt: number;
  /** Epoch ms the request started. */
  at: number;
  durationMs: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** What went wrong (no answer, a refused address, a non-2xx). */
  error?: string;
}

/** One event sent to one subscription (a resend is a delivery of its own). */
export interface WebhookDelivery {
  /** `dlv_…` */
  id: string;
  tenant: string;
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  runId: string;
  /** The body every attempt sent. */
  body: string;
  status: WebhookDeliveryStatus;
  createdAt: number;
  endedAt?: number;
  resendOf?: string;
  attempts: WebhookAttempt[];
}

/** Subscriptions and the delivery log; every read is scoped by tenant, every write is idempotent. */
export interface WebhookStore {
  setup(): Promise<void>;
  /** Stores a subscription; false (and nothing changed) when its id is taken. */
  createSubscription(sub: WebhookSubscription): Promise<boolean>;
  getSubscription(tenant: string, id: string): Promise<WebhookSubscription | undefined>;
  /** The tenant's subscriptions, oldest first (`rootRunId`: only those of that tree). */
  listSubscriptions(tenant: string, filter?: { rootRunId?: string }): Promise<WebhookSubscription[]>;
  /** The enabled subscriptions an event of the tree `rootRunId` may go to: the tree's own and the tenant-wide ones. */
  matchSubscriptions(tenant: string, rootRunId: string): Promise<WebhookSubscription[]>;
  /** Deletes a subscription (its deliveries stay in the log); false when the tenant has none by that id. */
  deleteSubscription(tenant: string, id: string): Promise<boolean>;
  disableSubscription(tenant: string, id: string, reason: string, at: number): Promise<void>;
  /** Stores a delivery once (by id): a second write changes nothing. */
  recordDelivery(delivery: Omit<WebhookDelivery, 'attempts' | 'status'>): Promise<void>;
  /** Adds an attempt once (by delivery and attempt number). */
  addAttempt(tenant: string, deliveryId: string, attempt: WebhookAttempt): Promise<void>;
  /** Sets how a delivery ended. */
  finishDelivery(tenant: string, deliveryId: string, status: 'succeeded' | 'failed', at: number): Promise<void>;
  /** A delivery with its attempts, in order. */
  getDelivery(tenant: string, deliveryId: string): Promise<WebhookDelivery | undefined>;
  /** A subscription's deliveries, newest first, at most `limit`. */
  listDeliveries(tenant: string, subscriptionId: string, limit: number): Promise<WebhookDelivery[]>;
}
