// Webhooks' contracts (docs/ARCHITECTURE.md, "Webhooks"): the events a subscription may ask for, what creating one
// takes (over HTTP, the client and POST /runs), and the input of the delivery workflow.
import { z } from 'zod';
import { AgentNameFilter } from './specs';

/** The events a webhook subscription can receive. */
export const WEBHOOK_EVENT_TYPES = [
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.paused',
  'approval.requested',
  'approval.expired',
] as const;
/** One of {@link WEBHOOK_EVENT_TYPES}. */
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
/** One of {@link WEBHOOK_EVENT_TYPES}. */
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Most webhook subscriptions one tenant may have (POST /webhooks answers 409 past it). */
export const MAX_WEBHOOKS_PER_TENANT = 100;
/** Most webhooks one POST /runs may bring. */
export const MAX_RUN_WEBHOOKS = 5;

/**
 * A subscriber's URL: http(s) only, bounded (where it may point is checked apart, see
 * platform/address-policy.ts).
 */
export const WebhookUrl = z
  .string()
  .max(2048)
  .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'url: an absolute http:// or https:// URL');

/** A webhook asked for at a run's start (POST /runs `webhooks`): the run's tree only. */
export const RunWebhookRequest = z
  .object({
    url: WebhookUrl,
    /** Default: every type. */
    events: z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
  })
  .strict();
/** A webhook asked for at a run's start. */
export type RunWebhookRequest = z.infer<typeof RunWebhookRequest>;

/** The body of POST /webhooks: a subscription of the caller's tenant. */
export const CreateWebhookRequest = RunWebhookRequest.extend({
  /** Only runs of this agent (the agent of the run the event is about). */
  agent: AgentNameFilter.optional(),
  /** Only the tree of this root run. */
  rootRunId: z
    .string()
    .regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id')
    .optional(),
  /** Also run.* events of nested runs (agents used as tools, sub-agents); approvals are sent at any depth. */
  includeNested: z.boolean().optional(),
  description: z.string().max(256).optional(),
}).strict();
/** The body of POST /webhooks. */
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

/** One event as a delivery sends it: its stable id, type and the JSON body every attempt signs. */
export interface WebhookEvent {
  /** Stable across retries, resends and repeated writes of the event: the `webhook-id` header. */
  id: string;
  type: WebhookEventType;
  /** The run the event is about. */
  runId: string;
  /** The body: `{"type", "timestamp", "data"}` as JSON. */
  body: string;
}

/** Input of the webhookDelivery workflow: one event to one subscription, one series of attempts. */
export interface WebhookDeliveryInput {
  tenant: string;
  subscriptionId: string;
  /** `dlv_…`: the delivery (a resend is a new one) and its log's key. */
  deliveryId: string;
  event: WebhookEvent;
  /** A resend: the delivery it repeats. */
  resendOf?: string;
}

/** How deliveries are attempted, from the worker that runs them (recorded once per delivery). */
export interface WebhookDeliverySettings {
  /** The task queue of the activities that call receivers (apart from runs' own). */
  taskQueue: string;
  /** How long a delivery is retried, from its first attempt (ms). */
  retryWindowMs: number;
  /** The first retry's delay; each next one doubles, up to `maxIntervalMs`. */
  initialIntervalMs: number;
  maxIntervalMs: number;
  /** One attempt's HTTP timeout (ms). */
  attemptTimeoutMs: number;
}

/** How a delivery ended. */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * The workflow id of a delivery: one per delivery id, so an event is enqueued once however often its log is written.
 */
export const webhookWorkflowId = (deliveryId: string): string => `agio-webhook/${deliveryId}`;

/** The delivery workflow's type (workflows/jobs/webhook-delivery.ts). */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

/** How a delivery workflow is started: its id refuses a second start, even after it closed (within retention). */
export function webhookStartOptions(taskQueue: string, input: WebhookDeliveryInput) {
  return {
    taskQueue,
    workflowId: webhookWorkflowId(input.deliveryId),
    args: [input] as [WebhookDeliveryInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  };
}

/** Input of the deliverWebhook activity: the delivery and one attempt's timeout. */
export interface DeliverWebhookInput extends WebhookDeliveryInput {
  attemptTimeoutMs: number;
}

/** The activities of a delivery (activities/webhooks/deliver.ts). */
export interface WebhookActivities {
  /** The settings of the worker that runs the delivery (a local activity: recorded once). */
  webhookDeliverySettings(): Promise<WebhookDeliverySettings>;
  /** One attempt: POSTs the signed event and logs the attempt; throws to be retried (a non-2xx, no answer). */
  deliverWebhook(input: DeliverWebhookInput): Promise<void>;
  /** Marks a delivery failed once its attempts are over. */
  finishWebhookDelivery(input: { tenant: string; deliveryId: string }): Promise<void>;
}
