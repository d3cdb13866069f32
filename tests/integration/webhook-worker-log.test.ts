// The webhook poller has activities only, by design: the SDK's warning that such a worker polls no workflow tasks is
// not printed at every worker start, and an activities-only worker of anyone else still warns.
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { quietRuntime } from '../../testing/test-environment';
import { NO_WORKFLOWS_WARNING } from '../../worker/webhook-worker';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';

describe('webhook poller log', () => {
  it('does not warn that the webhook poller has no workflows, and still passes that warning of other workers', async () => {
    quietRuntime();
    const warn = jest.spyOn(Runtime.instance().logger, 'warn');
    const connection = await NativeConnection.connect({ address: testEnv('temporalAddress') });
    const worker = await startTestWorker({ connection, model: { apiKey: 'unused', defaultModel: 'unused' } });
    try {
      const other = await Worker.create({
        connection,
        taskQueue: uniqueId('other'),
        activities: { noop: async () => 0 },
      });
      await other.runUntil(new Promise((resolve) => setTimeout(resolve, 500)));
      const warned = warn.mock.calls.filter(([message]) => message === NO_WORKFLOWS_WARNING).map(([, meta]) => meta);
      expect(warned).toEqual([expect.objectContaining({ taskQueue: other.options.taskQueue })]);
    } finally {
      await worker.stop();
      await connection.close();
      warn.mockRestore();
    }
  });
});
