// Where webhook events are seen: the persistence activities hand every batch of a run's log to this enqueuer before
// they store it (durably: a failed start fails the write, which is retried), and the worker's wire sink hands it each
// event as the run appends it (promptly: a run waiting for an approval or paused writes its log only when it goes on).
// For each event webhooks carry and each subscription that takes it, it starts a delivery workflow whose id names the
// subscription and the event, so a retried write, a replayed run or two writes of one event start one delivery
// (Temporal refuses the duplicate id). The run waits only for the starts.
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { WireEvent } from '../../common';
import { WEBHOOK_DELIVERY_WORKFLOW, webhookStartOptions, type WebhookDeliveryInput } from '../../common/webhooks';
import type { WebhookStore } from '../../stores/webhooks';
import { isWebhookSource, subscriptionTakes, webhookDeliveryId, webhookEventOf } from './events';

/** Where deliveries start: a Temporal client and the task queue of the delivery workflows (the worker's). */
export interface DeliveryStarter {
  client: Context['client'];
  taskQueue: string;
}

/**
 * Enqueues the deliveries of a batch of the log `logId`'s events; throws when it cannot. Without `starter`: the
 * calling activity's client and task queue.
 */
export type WebhookEnqueuer = (
  tenant: string,
  logId: string,
  events: WireEvent[],
  starter?: DeliveryStarter,
) => Promise<void>;

/** The enqueuer over the worker's webhook store. */
export function webhookEnqueuer(store: WebhookStore): WebhookEnqueuer {
  return async (tenant, logId, events, starter) => {
    const found = events.flatMap((source) => {
      const event = isWebhookSource(source.type) ? webhookEventOf(logId, source) : undefined;
      return event ? [{ source, event }] : [];
    });
    if (!found.length) return;
    // Every event of one log is of one tree. Read on every such batch (a run's end, a pause, an approval: a few per
    // run), not cached, so a subscription made just before a run's start never misses its end.
    const subs = await store.matchSubscriptions(tenant, found[0].source.rootRunId);
    const starts: WebhookDeliveryInput[] = [];
    for (const { source, event } of found)
      for (const sub of subs)
        if (subscriptionTakes(sub, event, source))
          starts.push({ tenant, subscriptionId: sub.id, deliveryId: webhookDeliveryId(sub.id, event.id), event });
    if (!starts.length) return;
    const { client, taskQueue } = starter ?? {
      client: Context.current().client,
      taskQueue: Context.current().info.taskQueue,
    };
    await Promise.all(starts.map((input) => startDelivery(client, taskQueue, input)));
  };
}

/** Starts a delivery workflow; one already started (or closed) under its id is left as it is. */
export async function startDelivery(
  client: Context['client'],
  taskQueue: string,
  input: WebhookDeliveryInput,
): Promise<void> {
  try {
    await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, webhookStartOptions(taskQueue, input));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
