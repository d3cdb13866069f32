// The delivery activities (workflows/jobs/webhook-delivery.ts runs them): each attempt reads its subscription (URL and
// secret stay out of history), signs the event per the Standard Webhooks specification, POSTs it and logs the attempt.
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { Webhook } from 'standardwebhooks';
import type { DeliverWebhookInput, WebhookActivities } from '../../common/webhooks';
import type { WebhookStore } from '../../stores/webhooks';
import { postWebhook } from './http';
import type { WebhookWorkerSettings } from './settings';

/** Error types a delivery ends with at once (no retry). */
export const WebhookErrorType = {
  /** The subscription was deleted. */
  SubscriptionGone: 'WebhookSubscriptionGone',
  /** The subscription is disabled (its receiver answered 410 Gone). */
  Disabled: 'WebhookDisabled',
  /** The destination is an address webhooks may not reach. */
  AddressRefused: 'WebhookAddressRefused',
} as const;

/** A store write whose failure must not repeat a request the receiver already got: logged, not thrown. */
async function logged(what: string, write: Promise<void>): Promise<void> {
  await write.catch((err: Error) => log.warn(`webhook ${what} not logged: ${err.message}`));
}

/** The webhook activities over the worker's store and settings. */
export function createWebhookActivities(store: WebhookStore, settings: WebhookWorkerSettings): WebhookActivities {
  return {
    async webhookDeliverySettings() {
      const { taskQueue, retryWindowMs, initialIntervalMs, maxIntervalMs, attemptTimeoutMs } = settings;
      return { taskQueue, retryWindowMs, initialIntervalMs, maxIntervalMs, attemptTimeoutMs };
    },

    async deliverWebhook(input: DeliverWebhookInput) {
      const { tenant, deliveryId, event } = input;
      await store.recordDelivery({
        id: deliveryId,
        tenant,
        subscriptionId: input.subscriptionId,
        eventId: event.id,
        eventType: event.type,
        runId: event.runId,
        body: event.body,
        createdAt: Date.now(),
        ...(input.resendOf ? { resendOf: input.resendOf } : {}),
      });
      const sub = await store.getSubscription(tenant, input.subscriptionId);
      if (!sub)
        throw nonRetryable(WebhookErrorType.SubscriptionGone, `subscription ${input.subscriptionId} is deleted`);
      if (sub.disabled)
        throw nonRetryable(WebhookErrorType.Disabled, `subscription is disabled: ${sub.disabled.reason}`);
      const at = new Date();
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Agio-Webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(sub.secret).sign(event.id, at, event.body),
      };
      const answer = await postWebhook(sub.url, headers, event.body, {
        timeoutMs: input.attemptTimeoutMs,
        allowPrivate: settings.allowPrivate,
      });
      const attempt = Context.current().info.attempt;
      await logged(
        'attempt',
        store.addAttempt(tenant, deliveryId, {
          attempt,
          at: at.getTime(),
          durationMs: answer.durationMs,
          ...(answer.status !== undefined ? { status: answer.status } : {}),
          ...(answer.error ? { error: answer.error } : {}),
        }),
      );
      if (!answer.error) return logged('success', store.finishDelivery(tenant, deliveryId, 'succeeded', Date.now()));
      if (answer.refused) throw nonRetryable(WebhookErrorType.AddressRefused, answer.error);
      if (answer.status === 410) {
        // 410 Gone: the receiver says it wants no more; the subscription is disabled (and stays listed, saying why).
        await store.disableSubscription(tenant, sub.id, 'the receiver answered 410 Gone', Date.now());
        throw nonRetryable(WebhookErrorType.Disabled, 'the receiver answered 410 Gone: subscription disabled');
      }
      throw ApplicationFailure.retryable(answer.error, 'WebhookAttemptFailed');
    },

    async finishWebhookDelivery({ tenant, deliveryId }) {
      await store.finishDelivery(tenant, deliveryId, 'failed', Date.now());
    },
  };
}

function nonRetryable(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}
