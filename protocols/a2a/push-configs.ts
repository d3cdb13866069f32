// A2A push notification configs as Agio webhooks of the task's run (docs/ARCHITECTURE.md, "Webhooks"): each config
// is a subscription to the run's tree (run.completed, run.failed, run.cancelled, run.paused, approval.requested,
// approval.expired), delivered durably by the workers (retried with backoff, across restarts, logged), to a URL the
// address policy allows, signed with Standard Webhooks under a key the client chose: the config's token. The SDK's own
// sender would post from the bridge process, and only while a request of the task is open.
import { createHash } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationSender, PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import type { WebhooksClient } from '../../client/webhooks';
import { WEBHOOK_EVENT_TYPES } from '../../common/webhooks';
import { callerOf } from './caller';

/** A config's token: the signing key (its UTF-8 bytes), so 24-256 visible ASCII characters. */
const TOKEN = /^[\x21-\x7e]{24,256}$/;
/** A config id a client may choose. */
const CONFIG_ID = /^[A-Za-z0-9._-]{1,64}$/;

type Subscription = Parameters<WebhooksClient['store']['createSubscription']>[0];

/** The Standard Webhooks secret of a token: `whsec_` and its bytes in base64 (receivers verify with it). */
export const pushSecretOf = (token: string): string => `whsec_${Buffer.from(token, 'utf8').toString('base64')}`;

/** The webhook id of a task's config: derived, so saving the same config again replaces it. */
const webhookIdOf = (tenant: string, taskId: string, configId: string) =>
  `whk_a2a${createHash('sha256')
    .update(JSON.stringify([tenant, taskId, configId]))
    .digest('hex')
    .slice(0, 32)}`;

/** What the push configs need of the bridge. */
export interface PushConfigDoors {
  webhooks: WebhooksClient;
  /** Throws with a message saying why a URL may not receive webhooks (the bridge's address policy). */
  checkUrl(url: string): Promise<void>;
}

/** Push configs kept as the task's run's webhooks. */
export class WebhookPushConfigs implements PushNotificationStore {
  constructor(private readonly doors: PushConfigDoors) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    const { tenant } = callerOf(context);
    if (config.authentication)
      throw new RequestMalformedError(
        'push notification authentication is not supported: deliveries are signed with the token (Standard Webhooks)',
      );
    if (!TOKEN.test(config.token ?? ''))
      throw new RequestMalformedError(
        'push notification token: 24-256 visible ASCII characters; deliveries are signed with it (Standard Webhooks, secret whsec_ + base64 of the token)',
      );
    if (config.id && !CONFIG_ID.test(config.id))
      throw new RequestMalformedError('push notification config id: 1-64 letters, digits, . _ -');
    if (!/^https?:\/\//i.test(config.url ?? '') || !URL.canParse(config.url) || config.url.length > 2048)
      throw new RequestMalformedError('push notification url: an absolute http(s) URL of at most 2048 characters');
    try {
      await this.doors.checkUrl(config.url);
    } catch (err) {
      throw new RequestMalformedError(`push notification url refused: ${(err as Error).message}`);
    }
    config.id ||= 'default';
    const id = webhookIdOf(tenant, taskId, config.id);
    const sub: Subscription = {
      id,
      tenant,
      url: config.url,
      events: [...WEBHOOK_EVENT_TYPES],
      rootRunId: taskId,
      description: `a2a:${config.id}`,
      secret: pushSecretOf(config.token),
      createdAt: Date.now(),
    };
    const store = this.doors.webhooks.store;
    if (!(await store.createSubscription(sub))) {
      await store.deleteSubscription(tenant, id);
      await store.createSubscription(sub);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const { tenant } = callerOf(context);
    const subs = await this.doors.webhooks.list(tenant, { rootRunId: taskId });
    return subs
      .filter((s) => s.description?.startsWith('a2a:'))
      .map((s) => ({
        tenant: '',
        id: s.description!.slice('a2a:'.length),
        taskId,
        url: s.url,
        token: '',
        authentication: undefined,
      }));
  }

  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const { tenant } = callerOf(context);
    for (const config of await this.load(taskId, context)) {
      if (configId && config.id !== configId) continue;
      await this.doors.webhooks.remove(tenant, webhookIdOf(tenant, taskId, config.id)).catch(() => undefined);
    }
  }
}

/** The SDK's sender, silent: the workers deliver (see above). */
export const workersDeliver: PushNotificationSender = { send: async () => undefined };
