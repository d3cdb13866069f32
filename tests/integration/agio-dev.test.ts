// `agio dev` as a user runs it: a Temporal server alone, which a worker and a client of the user's own connect to and
// run an agent on (the namespace and Agio's search attributes are there already); Ctrl-C stops it. Without a server
// binary and without Go it says what to install, or to use a server of one's own, and starts nothing.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { isPortFree } from '../../devkit/free-port';
import { startServe, type ServeProcess } from '../helpers/serve-process';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

describe('agio dev', () => {
  jest.setTimeout(120_000);
  const bed = useTestBed({ worker: false });
  let dir: string;
  let dev: ServeProcess | undefined;
  let worker: TestWorker | undefined;
  let connection: Connection | undefined;
  let workerConnection: NativeConnection | undefined;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-dev-'));
  });
  afterAll(async () => {
    await worker?.stop();
    await workerConnection?.close();
    await connection?.close();
    if (dev?.child.exitCode === null) {
      dev.child.kill('SIGINT');
      await dev.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a Temporal server that a worker and a client of ours run an agent on, and Ctrl-C stops it', async () => {
    const dataDir = path.join(dir, 'data');
    dev = await startServe(dataDir, 0, { command: 'dev', args: ['--no-ui'], until: 'Ctrl-C stops it.' });
    const address = /address\s+(127\.0\.0\.1:\d+)/.exec(dev.output())![1];
    // 7233 when free; when something else holds it (another test's serve), a free port, and the output says so.
    if (address !== '127.0.0.1:7233') expect(dev.output()).toContain(`TEMPORAL_ADDRESS=${address}`);
    expect(dev.output()).toContain('namespace  default, with search attributes AgioTenant, AgioAgent, AgioRootRunId');
    expect(dev.output()).toContain(`data       ${dataDir}`);
    expect(fs.existsSync(path.join(dataDir, 'temporal.db'))).toBe(true);

    // Registered before any worker comes: a client alone can start and list runs.
    connection = await Connection.connect({ address });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(customAttributes ?? {})).toEqual(
      expect.arrayContaining(['AgioTenant', 'AgioAgent', 'AgioRootRunId']),
    );
    workerConnection = await NativeConnection.connect({ address });
    worker = await startTestWorker({ connection: workerConnection, model: bed.model() });
    const agio = new AgioClient(new Client({ connection }), { taskQueue: worker.taskQueue });
    bed.server.script(text('hello from agio dev'));
    const run = await agio.start(defineAgent({ name: 'greeter' }), 'hello');
    expect((await run.result()).response).toBe('hello from agio dev');

    await worker.stop();
    worker = undefined;
    await workerConnection.close();
    workerConnection = undefined;
    await connection.close();
    connection = undefined;
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
    expect(dev.output()).toContain('agio dev: stopped');
    const port = Number(address.split(':')[1]);
    await waitFor(`port ${port} to be free`, () => isPortFree(port), 15_000);
  });

  it('without a server binary and without Go, says what to install or use instead, and starts nothing', async () => {
    const tools = path.join(dir, 'empty-tools');
    const started = Date.now();
    const refused = await startServe(path.join(dir, 'no-go'), 0, {
      command: 'dev',
      args: ['--no-ui'],
      until: 'TEMPORAL_ADDRESS=host:port',
      env: { AGIO_GO: path.join(dir, 'no-go-here'), AGIO_TOOLS_DIR: tools, TEMPORAL_SERVER_PATH: undefined },
    });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('no Temporal server here (temporal-server v1.32.0), and no Go to build one');
    expect(refused.output()).toContain('install Go 1.26.8 or later');
    expect(refused.output()).toContain(path.join(tools, 'temporal-server-v1.32.0'));
    expect(refused.output()).toContain('TEMPORAL_SERVER_PATH');
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
