// Webhooks survive restarts (docs/ARCHITECTURE.md, "Webhooks"): with the receiver down, runs end and their deliveries
// keep failing while the worker and the bridge processes are killed (SIGKILL) and started again; once the receiver is
// back every event arrives exactly once, signed, and the new bridge serves the whole delivery log. The worker takes its
// webhook settings from AGIO_WEBHOOK_* as `agio worker` does; stores are MongoDB (FerretDB), shared by the processes.
import { randomUUID } from 'node:crypto';
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { request } from '../helpers/bridge';
import { startBridgeProcess, type BridgeProcess } from '../helpers/bridge-process';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { useTestBed } from '../helpers/test-bed';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { startTestWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'restart-admin';
const agent = defineAgent({ name: 'restarted', instructions: 'You are restarted.' });
const WEBHOOK_ENV = {
  AGIO_WEBHOOK_ALLOW_PRIVATE: '1',
  AGIO_WEBHOOK_RETRY_INITIAL: '300ms',
  AGIO_WEBHOOK_RETRY_MAX_INTERVAL: '1s',
  AGIO_WEBHOOK_TIMEOUT: '1s',
};

describe('webhooks across restarts', () => {
  const bed = useTestBed({ worker: false });
  const taskQueue = `webhooks-restart-${randomUUID()}`;
  let mongo: TestMongoStores;
  let worker: WorkerProcess | undefined;
  let bridge: BridgeProcess | undefined;
  beforeAll(async () => {
    mongo = await openMongoStores();
  });
  afterAll(async () => {
    bridge?.kill('SIGKILL');
    await stopWorkerProcess(worker);
    await mongo?.close();
  });

  const startWorker = () => startTestWorkerProcess({ taskQueue, model: bed.model(), mongoUri: mongo.uri }, WEBHOOK_ENV);
  const startBridge = () =>
    startBridgeProcess(
      { taskQueue, agents: [agent], mongoUri: mongo.uri, tokens: `${TOKEN}:default:ops:start+read+admin` },
      WEBHOOK_ENV,
    );
  const api = (path: string, body?: unknown) => request(`${bridge!.url}${path}`, { token: TOKEN, body });
  const runToEnd = async () => {
    const { body } = await api('/runs', { agent: 'restarted', input: 'go' });
    await waitFor(
      `${body.runId} completed`,
      async () => (await api(`/runs/${body.runId}`)).body.status === 'completed',
    );
    return body.runId as string;
  };

  it('delivers every event exactly once after the worker and the bridge restart while the receiver is down', async () => {
    let receiver = await WebhookReceiver.start();
    const port = receiver.port;
    [worker, bridge] = await Promise.all([startWorker(), startBridge()]);
    const { body: hook } = await api('/webhooks', { url: receiver.url('/r'), events: ['run.completed'] });
    await receiver.close();

    bed.server.scriptFor('You are restarted.', text('one'), text('two'), text('three'));
    const before = [await runToEnd(), await runToEnd()];
    // Both deliveries have failed at least once against the closed port before anything restarts.
    await waitFor('two failed attempts', async () => {
      const list = await mongo.stores.webhooks.listDeliveries('default', hook.id, 10);
      return list.length === 2 && list.every((d) => d.attempts.length >= 1);
    });
    worker.kill('SIGKILL');
    bridge.kill('SIGKILL');
    await Promise.all([worker.exited, bridge.exited]);
    [worker, bridge] = await Promise.all([startWorker(), startBridge()]);
    const after = await runToEnd();

    receiver = await WebhookReceiver.start(port);
    try {
      receiver.verifyWith('/r', hook.secret);
      const deliveries = await waitFor('three deliveries succeeded', async () => {
        const { body } = await api(`/webhooks/${hook.id}/deliveries`);
        const done = body.deliveries.filter((d: { status: string }) => d.status === 'succeeded');
        return done.length === 3 ? body.deliveries : undefined;
      });
      const got = receiver.at('/r');
      expect(got.map((r) => r.body.data.runId).sort()).toEqual([...before, after].sort());
      expect(got.every((r) => r.verified && r.body.type === 'run.completed')).toBe(true);
      expect(new Set(got.map((r) => r.id)).size).toBe(3);
      for (const run of before) {
        const d = deliveries.find((x: { runId: string }) => x.runId === run);
        expect(d.attempts.length).toBeGreaterThanOrEqual(2);
        expect(d.attempts[0].error).toMatch(/ECONNREFUSED/);
        expect(d.attempts.at(-1)).toMatchObject({ status: 200 });
      }
    } finally {
      await receiver.close();
    }
  });
});
