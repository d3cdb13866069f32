// Webhooks over HTTP: POST/GET /webhooks, GET/DELETE /webhooks/:id, GET /webhooks/:id/deliveries (the delivery log,
// each attempt's time, status or error and duration), GET /webhooks/deliveries/:deliveryId and POST
// /webhooks/deliveries/:deliveryId/resend. Creating, deleting and resending take `admin` (a subscription receives
// every run of the tenant); reading takes `read`. A tenant sees only its own.
import { z } from 'zod';
import { CreateWebhookRequest, WEBHOOK_EVENT_TYPES } from '../../common/webhooks';
import { WebhookRequestError } from '../../client/webhooks';
import { apiRoute, defineRoute } from '../api-route';
import { HttpError } from '../errors';
import { checkedWebhookUrl, webhooksOf } from '../run-webhooks';
import type { Routes } from './context';

/** A webhook's id in a path. */
export const WebhookParams = z.object({ id: z.string().regex(/^whk_[A-Za-z0-9]{1,64}$/, 'malformed webhook id') });
/** A delivery's id in a path. */
export const DeliveryParams = z.object({
  deliveryId: z.string().regex(/^dlv_[a-f0-9]{32}$/, 'malformed delivery id'),
});
/** GET /webhooks' query. */
export const ListWebhooksQuery = z
  .object({
    rootRunId: z
      .string()
      .regex(/^[A-Za-z0-9._:/-]{1,512}$/, 'malformed run id')
      .optional(),
  })
  .strict();
/** GET /webhooks/:id/deliveries' query. */
export const ListDeliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }).strict();

/** A subscription as answered (never its secret, but when created). */
export const WebhookAnswer = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  agent: z.string().optional(),
  rootRunId: z.string().optional(),
  includeNested: z.boolean().optional(),
  description: z.string().optional(),
  createdAt: z.number().describe('epoch ms'),
  disabled: z.object({ at: z.number(), reason: z.string() }).optional(),
});
/** POST /webhooks: the subscription and its signing secret, shown this once. */
export const CreatedWebhookAnswer = WebhookAnswer.extend({
  secret: z.string().describe('whsec_<base64>: verify deliveries with it (Standard Webhooks); not shown again'),
});
/** One delivery with its attempts. */
export const DeliveryAnswer = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string().describe('the webhook-id header: the same for every attempt and resend of the event'),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  runId: z.string(),
  body: z.string().describe('the JSON body sent'),
  status: z.enum(['pending', 'succeeded', 'failed']),
  createdAt: z.number(),
  endedAt: z.number().optional(),
  resendOf: z.string().optional(),
  attempts: z.array(
    z.object({
      attempt: z.number(),
      at: z.number().describe('epoch ms the request started'),
      durationMs: z.number(),
      status: z.number().optional().describe("the receiver's HTTP status"),
      error: z.string().optional(),
    }),
  ),
});

const noStores = 'no_stores: this bridge has no stores configured (set MONGODB_URI)';
const notFound = 'webhook_not_found / delivery_not_found (also for another tenant\u2019s)';

/** POST /webhooks. */
export const CreateWebhook = defineRoute({
  method: 'POST',
  path: '/webhooks',
  summary: "Subscribe a URL to the tenant's run and approval events",
  tags: ['webhooks'],
  auth: 'admin',
  body: CreateWebhookRequest,
  responses: {
    201: CreatedWebhookAnswer,
    409: 'webhook_limit: the tenant has the most webhooks it may',
    501: noStores,
  },
});
/** GET /webhooks. */
export const ListWebhooks = defineRoute({
  method: 'GET',
  path: '/webhooks',
  summary: "The tenant's webhooks",
  tags: ['webhooks'],
  auth: 'read',
  query: ListWebhooksQuery,
  responses: { 200: z.object({ webhooks: z.array(WebhookAnswer) }), 501: noStores },
});
/** GET /webhooks/:id. */
export const GetWebhook = defineRoute({
  method: 'GET',
  path: '/webhooks/:id',
  summary: 'One webhook',
  tags: ['webhooks'],
  auth: 'read',
  params: WebhookParams,
  responses: { 200: WebhookAnswer, 404: notFound, 501: noStores },
});
/** DELETE /webhooks/:id. */
export const DeleteWebhook = defineRoute({
  method: 'DELETE',
  path: '/webhooks/:id',
  summary: 'Delete a webhook (its delivery log stays readable)',
  tags: ['webhooks'],
  auth: 'admin',
  params: WebhookParams,
  responses: { 204: { description: 'Deleted' }, 404: notFound, 501: noStores },
});
/** GET /webhooks/:id/deliveries. */
export const ListDeliveries = defineRoute({
  method: 'GET',
  path: '/webhooks/:id/deliveries',
  summary: "A webhook's deliveries with their attempts, newest first",
  tags: ['webhooks'],
  auth: 'read',
  params: WebhookParams,
  query: ListDeliveriesQuery,
  responses: { 200: z.object({ deliveries: z.array(DeliveryAnswer) }), 404: notFound, 501: noStores },
});
/** GET /webhooks/deliveries/:deliveryId. */
export const GetDelivery = defineRoute({
  method: 'GET',
  path: '/webhooks/deliveries/:deliveryId',
  summary: 'One delivery with its attempts',
  tags: ['webhooks'],
  auth: 'read',
  params: DeliveryParams,
  responses: { 200: DeliveryAnswer, 404: notFound, 501: noStores },
});
/** POST /webhooks/deliveries/:deliveryId/resend. */
export const ResendDelivery = defineRoute({
  method: 'POST',
  path: '/webhooks/deliveries/:deliveryId/resend',
  summary: "Send a delivery's event again, as a new delivery (same webhook-id)",
  tags: ['webhooks'],
  auth: 'admin',
  params: DeliveryParams,
  responses: { 202: z.object({ deliveryId: z.string() }), 404: notFound, 501: noStores },
});

/** Runs a webhook call, answering its refusals in the bridge's error shape. */
async function answering<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof WebhookRequestError)) throw err;
    throw new HttpError(err.code === 'webhook_limit' ? 409 : 404, err.code, err.message);
  }
}

export const webhookRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, CreateWebhook, async ({ caller, body, reply }) => {
    const hooks = webhooksOf(ctx);
    await checkedWebhookUrl(ctx, body.url);
    const created = await answering(() => hooks.create(caller.tenant, body));
    return reply.status(201).send(created);
  });
  apiRoute(app, ctx.tokens, ListWebhooks, async ({ caller, query }) => ({
    webhooks: await webhooksOf(ctx).list(caller.tenant, query),
  }));
  apiRoute(app, ctx.tokens, GetWebhook, async ({ caller, params }) =>
    answering(() => webhooksOf(ctx).get(caller.tenant, params.id)),
  );
  apiRoute(app, ctx.tokens, DeleteWebhook, async ({ caller, params, reply }) => {
    await answering(() => webhooksOf(ctx).remove(caller.tenant, params.id));
    return reply.status(204).send();
  });
  apiRoute(app, ctx.tokens, ListDeliveries, async ({ caller, params, query }) => {
    const hooks = webhooksOf(ctx);
    const deliveries = await hooks.deliveries(caller.tenant, params.id, query.limit);
    // None: 404 as GET /webhooks/:id does when the tenant has no such webhook; a deleted one's log stays readable.
    if (!deliveries.length) await answering(() => hooks.get(caller.tenant, params.id));
    return { deliveries };
  });
  apiRoute(app, ctx.tokens, GetDelivery, async ({ caller, params }) =>
    answering(() => webhooksOf(ctx).delivery(caller.tenant, params.deliveryId)),
  );
  apiRoute(app, ctx.tokens, ResendDelivery, async ({ caller, params, reply }) => {
    const resent = await answering(() => webhooksOf(ctx).resend(caller.tenant, params.deliveryId));
    return reply.status(202).send(resent);
  });
};
