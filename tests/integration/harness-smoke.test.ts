// The harness itself: a real dev server, a real worker, a workflow that is signalled, queried and calls an activity.
import type { Client, Connection } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { smokeNameSignal, smokeStatusQuery, type SmokeActivities } from '../fixtures/smoke-workflow';
import { startTestWorker, testClient, uniqueId, type TestWorker } from '../helpers/temporal';

describe('test harness', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  const greet: SmokeActivities['greet'] = async (name) => `hello, ${name}`;

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    worker = await startTestWorker({ model: { apiKey: 'unused', defaultModel: 'unused' }, extraActivities: { greet } });
  });
  afterAll(async () => {
    await worker?.stop();
    await connection?.close();
  });

  it('runs a workflow on the real dev server that is signalled, queried and calls an activity', async () => {
    const handle = await client.workflow.start('smokeWorkflow', {
      taskQueue: worker.taskQueue,
      workflowId: uniqueId('smoke'),
    });
    await expect(handle.query(smokeStatusQuery)).resolves.toBe('waiting');
    await handle.signal(smokeNameSignal, 'agio');
    await expect(handle.result()).resolves.toBe('hello, agio');
    await expect(handle.query(smokeStatusQuery)).resolves.toBe('greeting');
  });

  it('talks to a real temporal process, visible in ps', () => {
    const ps = execFileSync('ps', ['-eo', 'args']).toString();
    expect(ps).toMatch(/temporal-server --config-file \S+ --allow-no-auth start/);
    expect(ps).toMatch(/ferretdb --handler=sqlite/);
  });
});
