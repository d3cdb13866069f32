// createWorker registers the search attributes runs are started with (AgioTenant, AgioAgent, AgioRootRunId) in a
// namespace that lacks them, as a plain `temporal server start-dev` namespace does: before, every run started there
// failed with "Namespace … has no mapping defined for search attribute AgioAgent".
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { AgioClient } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const AGIO_ATTRIBUTES = ['AgioTenant', 'AgioAgent', 'AgioRootRunId'];

describe('createWorker on a namespace without Agio search attributes', () => {
  const bed = useTestBed({ worker: false });
  let worker: TestWorker | undefined;
  afterAll(async () => worker?.stop());

  it('registers them at start, and a run started there completes', async () => {
    const namespace = uniqueId('agio-sa');
    const { workflowService, operatorService } = bed.connection;
    await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const attributes = async () =>
      Object.keys((await operatorService.listSearchAttributes({ namespace })).customAttributes ?? {});
    // A new namespace reaches every service of the server within a few seconds.
    const before = await waitFor(`namespace ${namespace}`, attributes);
    expect(before).not.toEqual(expect.arrayContaining(['AgioAgent']));

    worker = await startTestWorker({ namespace, model: bed.model() });

    bed.server.script(text('hello from a fresh namespace'));
    const agio = new AgioClient(new Client({ connection: bed.connection, namespace }), { taskQueue: worker.taskQueue });
    const run = await agio.start(defineAgent({ name: 'fresh' }), 'hello');
    expect((await run.result()).response).toBe('hello from a fresh namespace');
    expect(await attributes()).toEqual(expect.arrayContaining(AGIO_ATTRIBUTES));
  });
});
