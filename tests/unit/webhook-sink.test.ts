// The worker's webhook sink (worker/webhook-sink.ts) with a stand-in store and client: it enqueues a run's events as
// they are appended, one delivery per subscription and event (a second start of the same id is no error), keeps
// trying through a store blip, and reads nothing for batches webhooks do not carry.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { WireEvent } from '../../common';
import { createMemoryStores, type WebhookStore } from '../../stores';
import { WebhookSink } from '../../worker/webhook-sink';
import type { DeliveryStarter } from '../../activities/webhooks/enqueue';

const completed: WireEvent = {
  type: 'RUN_COMPLETED',
  runId: 'run-1',
  rootRunId: 'run-1',
  agent: 'coder',
  depth: 0,
  offset: 3,
  timestamp: 0,
};
const info = { workflowId: 'run-1', memo: { tenant: 't', agent: 'coder' } };

function setup(failures: number) {
  const store = createMemoryStores().webhooks;
  let reads = 0;
  const flaky: WebhookStore = Object.assign(Object.create(store) as WebhookStore, {
    matchSubscriptions: async (tenant: string, root: string) => {
      reads += 1;
      if (reads <= failures) throw new Error('store down');
      return store.matchSubscriptions(tenant, root);
    },
  });
  const started: string[] = [];
  const starter = {
    taskQueue: 'q',
    client: {
      workflow: {
        start: async (_type: string, opts: { workflowId: string }) => {
          if (started.includes(opts.workflowId))
            throw new WorkflowExecutionAlreadyStartedError('dup', opts.workflowId, 'webhookDelivery');
          started.push(opts.workflowId);
        },
      },
    },
  } as unknown as DeliveryStarter;
  const sink = new WebhookSink(flaky, 5);
  sink.bind(starter);
  return { store, sink, started, reads: () => reads };
}

describe('webhook sink', () => {
  it('enqueues once per subscription and event, through a store that fails twice, and ignores a repeat', async () => {
    const { store, sink, started, reads } = setup(2);
    for (const id of ['whk_a', 'whk_b'])
      await store.createSubscription({
        id,
        tenant: 't',
        url: 'https://x.test/',
        events: ['run.completed'],
        secret: 's',
        createdAt: 0,
      });
    await sink.appended(info, [completed]);
    expect(reads()).toBe(3);
    expect(started).toHaveLength(2);
    expect(started.every((id) => /^agio-webhook\/dlv_[0-9a-f]{32}$/.test(id))).toBe(true);
    await sink.appended(info, [completed]); // the same events again (another write, another worker)
    expect(started).toHaveLength(2);
  });

  it('reads no subscription for events webhooks do not carry, or a run without a tenant', async () => {
    const { sink, reads } = setup(0);
    await sink.appended(info, [{ ...completed, type: 'STEP_COMPLETED' }]);
    await sink.appended({ workflowId: 'run-1', memo: {} }, [completed]);
    expect(reads()).toBe(0);
  });
});
