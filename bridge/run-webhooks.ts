// Webhooks asked for at a run's start (POST /runs `webhooks`), and the URL check every webhook the bridge takes passes.
import { createHash } from 'node:crypto';
import type { RunWebhookRequest } from '../common/webhooks';
import { ForbiddenWebhookUrlError, checkWebhookUrl } from '../platform/address-policy';
import type { CreatedWebhook, WebhooksClient } from '../client/webhooks';
import { HttpError } from './errors';
import type { BridgeContext } from './routes/context';

/** The webhooks of the bridge's stores; 501 without stores. */
export function webhooksOf(ctx: BridgeContext): WebhooksClient {
  if (!ctx.opts.stores?.webhooks)
    throw new HttpError(501, 'no_stores', 'this bridge has no stores configured (set MONGODB_URI)');
  return ctx.agio.webhooks(ctx.opts.stores.webhooks);
}

/** Whether this bridge lets webhooks point at loopback and private addresses (AGIO_WEBHOOK_ALLOW_PRIVATE=1). */
function allowsPrivate(ctx: BridgeContext): boolean {
  return ctx.opts.webhookAllowPrivate ?? process.env.AGIO_WEBHOOK_ALLOW_PRIVATE === '1';
}

/** Checks a webhook URL (scheme, credentials, where it points); 400 webhook_url_refused says why not. */
export async function checkedWebhookUrl(ctx: BridgeContext, url: string, field = 'url'): Promise<void> {
  try {
    await checkWebhookUrl(url, allowsPrivate(ctx));
  } catch (err) {
    if (!(err instanceof ForbiddenWebhookUrlError)) throw err;
    throw new HttpError(400, 'webhook_url_refused', err.message.replace(/^url:/, `${field}:`));
  }
}

/** A run webhook as POST /runs answers it: its secret only when this request created it. */
export type RunWebhookAnswer = Pick<CreatedWebhook, 'id' | 'url' | 'events'> & { secret?: string };

/**
 * Creates the subscriptions of a run's tree before the run starts (so none of its events is missed). Their ids derive
 * from the tenant, the run and their place, so a repeated start (same Idempotency-Key) finds them instead of adding
 * more; only the request that created one gets its secret. Returns them and an undo for a start that failed.
 */
export async function createRunWebhooks(
  ctx: BridgeContext,
  tenant: string,
  runId: string,
  requests: RunWebhookRequest[],
): Promise<{ webhooks: RunWebhookAnswer[]; undo: () => Promise<void> }> {
  for (const [i, r] of requests.entries()) await checkedWebhookUrl(ctx, r.url, `webhooks.${i}.url`);
  const hooks = webhooksOf(ctx);
  const made: string[] = [];
  const webhooks: RunWebhookAnswer[] = [];
  for (const [i, request] of requests.entries()) {
    const id = `whk_${createHash('sha256')
      .update(JSON.stringify([tenant, runId, i]))
      .digest('hex')
      .slice(0, 32)}`;
    const created = await hooks.create(tenant, { ...request, rootRunId: runId }, id);
    if (created) made.push(id);
    const { url, events } = created ?? (await hooks.get(tenant, id));
    webhooks.push({ id, url, events, ...(created ? { secret: created.secret } : {}) });
  }
  const undo = async () => {
    await Promise.all(made.map((id) => hooks.remove(tenant, id).catch(() => undefined)));
  };
  return { webhooks, undo };
}
