// The worker's second poller: the webhook task queue, whose activities call receivers. Receivers get their own task
// queue and slots (AGIO_WEBHOOK_CONCURRENCY), so a slow or hanging one never holds an activity slot a run needs.
import type { NativeConnection, Worker as WorkerType, WorkerOptions } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { RunMemo, WireEvent } from '../common';
import { createWebhookActivities } from '../activities/webhooks/deliver';
import { webhookEnqueuer, type DeliveryStarter } from '../activities/webhooks/enqueue';
import { isWebhookSource } from '../activities/webhooks/events';
import type { WebhookWorkerSettings } from '../activities/webhooks/settings';
import type { WebhookStore } from '../stores/webhooks';

/**
 * Enqueues the deliveries of the events a run appends as it appends them (the worker's wire sink: never on replay), so
 * an approval or a pause is sent while the run waits; the log writes enqueue them again, durably (same workflow ids).
 */
export class WebhookSink {
  private starter?: DeliveryStarter;
  private readonly enqueue;

  /** `store`: the worker's; stores made without one (a caller's own Stores) send no webhooks. */
  constructor(store: WebhookStore | undefined) {
    this.enqueue = store && webhookEnqueuer(store);
  }

  /** Starts deliveries with the worker's client on its task queue (before this, the sink does nothing). */
  bind(worker: WorkerType): void {
    const client = worker.client;
    if (client) this.starter = { client, taskQueue: worker.options.taskQueue };
  }

  /** Called with the events a run appended to its Wire (its own log: the workflow's id names it). */
  appended(info: WorkflowInfo, events: WireEvent[]): void {
    const tenant = (info.memo as Partial<RunMemo> | undefined)?.tenant;
    if (!this.enqueue || !this.starter || !tenant || !events.some((e) => isWebhookSource(e.type))) return;
    this.enqueue(tenant, info.workflowId, events, this.starter).catch((err: Error) =>
      console.warn(`agio worker: webhooks of ${info.workflowId} wait for its next log write: ${err.message}`),
    );
  }
}

/** Creates the webhook poller and ties it to `main`: it runs while `main.run()` runs and stops when it returns. */
export async function attachWebhookWorker(
  main: WorkerType,
  opts: {
    connection: NativeConnection;
    namespace: string;
    settings: WebhookWorkerSettings;
    store: WebhookStore;
    sink: WebhookSink;
    workerOptions: Pick<WorkerOptions, 'dataConverter' | 'shutdownGraceTime'>;
  },
): Promise<void> {
  const { deliverWebhook, finishWebhookDelivery } = createWebhookActivities(opts.store, opts.settings);
  const hooks = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.settings.taskQueue,
    activities: { deliverWebhook, finishWebhookDelivery },
    maxConcurrentActivityTaskExecutions: opts.settings.concurrency,
    ...opts.workerOptions,
  });
  opts.sink.bind(main);
  // Every caller of createWorker runs `worker.run()`: the poller rides on it rather than asking each caller to run two.
  // It stops after the main worker (which may drain its activities for its grace time; a signal the SDK's runtime
  // handles stops the idle poller at once, which must not end the main worker early).
  const runMain = main.run.bind(main);
  main.run = async () => {
    const polling = hooks.run().catch((err: Error) => {
      console.error(`agio worker: the webhook poller stopped: ${err.message}`);
      if (main.getState() === 'RUNNING') main.shutdown();
    });
    try {
      return await runMain();
    } finally {
      if (hooks.getState() === 'RUNNING') hooks.shutdown();
      await polling;
    }
  };
}
