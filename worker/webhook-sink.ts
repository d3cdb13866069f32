// The prompt way webhook events are enqueued: the worker's wire sink hands each batch a run appends to its Wire
// (never on replay), so an approval or a pause is sent while the run waits; the run's log writes enqueue the same
// deliveries again later, durably (same workflow ids, started once).
import type { WorkflowInfo } from '@temporalio/workflow';
import type { RunMemo, WireEvent } from '../common';
import { webhookEnqueuer, type DeliveryStarter } from '../activities/webhooks/enqueue';
import { isWebhookSource } from '../activities/webhooks/events';
import type { WebhookStore } from '../stores/webhooks';

/**
 * How long the sink keeps trying a batch whose enqueue failed (a store or Temporal blip), doubling from `firstDelayMs`.
 */
export const SINK_RETRY_MS = 120_000;

/** Enqueues the deliveries of the events runs append, as they append them. */
export class WebhookSink {
  private starter?: DeliveryStarter;
  private readonly enqueue;

  /** `store`: the worker's; stores made without one (a caller's own Stores) send no webhooks. */
  constructor(
    store: WebhookStore | undefined,
    private readonly firstDelayMs = 500,
  ) {
    this.enqueue = store && webhookEnqueuer(store);
  }

  /** Starts deliveries with this client on this task queue (the worker's); before this, the sink does nothing. */
  bind(starter: DeliveryStarter): void {
    this.starter = starter;
  }

  /**
   * Called with the events a run appended to its Wire (its own log: the workflow's id names it). Resolves once they
   * are enqueued, or given up after {@link SINK_RETRY_MS} (the run's next log write enqueues them then).
   */
  async appended(info: Pick<WorkflowInfo, 'workflowId' | 'memo'>, events: WireEvent[]): Promise<void> {
    const tenant = (info.memo as Partial<RunMemo> | undefined)?.tenant;
    const { enqueue, starter } = this;
    if (!enqueue || !starter || !tenant || !events.some((e) => isWebhookSource(e.type))) return;
    for (let delay = this.firstDelayMs, waited = 0; ; waited += delay, delay *= 2) {
      try {
        return await enqueue(tenant, info.workflowId, events, starter);
      } catch (err) {
        if (waited + delay > SINK_RETRY_MS) {
          console.warn(
            `agio worker: webhooks of ${info.workflowId} wait for its next log write: ${(err as Error).message}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
      }
    }
  }
}
