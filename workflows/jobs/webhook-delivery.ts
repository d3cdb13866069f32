// One webhook delivery: one event to one subscription, attempted by the deliverWebhook activity on the webhook task
// queue (apart from runs' activities, so a slow receiver never takes a run's slots) with exponential backoff for as
// long as the worker's retry window, then marked failed. The settings come from the worker that runs it, once.
import { proxyActivities, proxyLocalActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { WebhookActivities, WebhookDeliveryInput } from '../../common/webhooks';

const { webhookDeliverySettings } = proxyLocalActivities<WebhookActivities>({ startToCloseTimeout: '10s' });

/** Delivers one event; answers how the delivery ended. */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'succeeded' | 'failed'> {
  const settings = await webhookDeliverySettings();
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
    taskQueue: settings.taskQueue,
    startToCloseTimeout: settings.attemptTimeoutMs + 5_000,
    scheduleToCloseTimeout: settings.retryWindowMs,
    retry: {
      initialInterval: settings.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: settings.maxIntervalMs,
    },
  });
  const { finishWebhookDelivery } = proxyActivities<WebhookActivities>({
    taskQueue: settings.taskQueue,
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '5m' },
  });
  try {
    await deliverWebhook({ ...input, attemptTimeoutMs: settings.attemptTimeoutMs });
    return 'succeeded';
  } catch {
    // Attempts over (the window closed, or an answer that ends it: 410 Gone, a refused address, a deleted
    // subscription).
    await finishWebhookDelivery({ tenant: input.tenant, deliveryId: input.deliveryId });
    return 'failed';
  }
}

// Not pinned to the build it started on: a delivery may wait days between attempts, across deploys.
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, webhookDelivery);
