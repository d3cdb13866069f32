// The worker's second poller: the webhook task queue, whose activities call receivers. Receivers get their own task
// queue and slots (AGIO_WEBHOOK_CONCURRENCY), so a slow or hanging one never holds an activity slot a run needs.
import type { LogMetadata, Logger } from '@temporalio/common';
import type { NativeConnection, Worker as WorkerType, WorkerOptions } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../activities/webhooks/deliver';
import type { WebhookWorkerSettings } from '../activities/webhooks/settings';
import type { WebhookStore } from '../stores/webhooks';
import type { WebhookSink } from './webhook-sink';

export { WebhookSink } from './webhook-sink';

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
  withoutNoWorkflowsWarning(hooks);
  if (main.client) opts.sink.bind({ client: main.client, taskQueue: main.options.taskQueue });
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

/** What the SDK warns at the start of a worker that has no workflows, as this poller has none by design. */
export const NO_WORKFLOWS_WARNING = 'No workflows registered, not polling for workflow tasks';

/**
 * Drops that one warning from the poller's log, which every worker start printed; its other messages go on. The SDK
 * has no option for it and keeps the worker's logger in a protected field: should that change, the line returns.
 */
function withoutNoWorkflowsWarning(worker: WorkerType): void {
  const held = worker as unknown as { logger?: Logger };
  const logger = held.logger;
  if (!logger) return;
  held.logger = Object.assign(Object.create(logger) as Logger, {
    warn: (message: string, meta?: LogMetadata) => {
      if (message !== NO_WORKFLOWS_WARNING) logger.warn(message, meta);
    },
  });
}
