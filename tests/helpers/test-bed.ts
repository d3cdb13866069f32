// The one setup of an integration test file: a client of the test dev server, a scripted model server, and
// (unless turned off) an in-process Agio worker, an AgioClient on its task queue and an HTTP bridge. It registers
// its own jest hooks, so a test file calls `useTestBed()` once at the top of a describe and reads the fields in
// its tests. After each test it checks that the model server got no unexpected call and has no unused answer.
import type { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { AgioClient } from '../../client/agio-client';
import type { AnyAgentSpec } from '../../common';
import type { Stores } from '../../stores';
import type { ModelConfig } from '../../activities/model/call-model';
import type { ToolDefinition } from '../../activities/tools/define-tool';
import type { CreateWorkerOptions } from '../../worker/create-worker';
import { ScriptedModelServer } from '../../devkit/scripted-model-server';
import { startBridge, type TestBridge, type TestBridgeOptions } from './bridge';
import { startTestWorker, testClient, type TestWorker } from './temporal';

/** Options of {@link useTestBed}. */
export interface TestBedOptions {
  /** Tools registered in the worker besides the built-in ones. */
  tools?: ToolDefinition[];
  /** Named agents known to the AgioClient and the bridge. */
  agents?: AnyAgentSpec[];
  /** Start an in-process worker (default true); false for files that start their own (e.g. in another process). */
  worker?: boolean;
  /** Model settings of the in-process worker besides the scripted server's address (e.g. `responseFormat: false`). */
  model?: Partial<Omit<ModelConfig, 'baseURL' | 'apiKey' | 'defaultModel'>>;
  /** More options of the in-process worker. */
  workerOptions?: Omit<CreateWorkerOptions, 'connection' | 'model' | 'tools' | 'taskQueue'>;
  /**
   * Opens the stores of the worker (and the bridge) before the worker starts; they are closed after it has
   * stopped (default: the worker's own memory stores).
   */
  stores?: () => Promise<{ stores: Stores; close(): Promise<void> }>;
  /** Start an HTTP bridge on the worker's task queue and stores, as `agio serve` does (default false). */
  bridge?: boolean | Omit<TestBridgeOptions, 'client' | 'taskQueue' | 'agents'>;
  /** The payload codec of the worker, the client, the AgioClient and the bridge (default none). */
  payloadCodec?: PayloadCodec;
  /** After each test, expect no unexpected model call and no unused scripted answer (default true). */
  strictModel?: boolean;
}

/** What a test bed holds; its fields are set in beforeAll. */
export interface TestBed {
  client: Client;
  connection: Connection;
  server: ScriptedModelServer;
  /** The worker's model settings (the scripted server). */
  model(): { baseURL: string; apiKey: string; defaultModel: string };
  /** The in-process worker (unless `worker: false`). */
  worker: TestWorker;
  /** The AgioClient on the worker's task queue (unless `worker: false`). */
  agio: AgioClient;
  /** The bridge (with `bridge`). */
  bridge: TestBridge;
  /**
   * Stops the in-process worker and starts another with the same options on its task queue and stores, as a deploy
   * or a crash and restart would; `worker` is then the new one.
   */
  restartWorker(): Promise<void>;
}

/** Registers beforeAll/afterAll/beforeEach/afterEach hooks that set up and tear down a test bed. */
export function useTestBed(opts: TestBedOptions = {}): TestBed {
  const bed = {
    model: () => ({ baseURL: bed.server.baseURL, apiKey: 'test', defaultModel: 'scripted' }),
  } as TestBed;
  let stores: { stores: Stores; close(): Promise<void> } | undefined;
  const startWorker = (on: { taskQueue?: string; stores?: Stores }) =>
    startTestWorker({
      ...opts.workerOptions,
      ...(opts.payloadCodec ? { payloadCodec: opts.payloadCodec } : {}),
      ...(on.stores ? { stores: on.stores } : {}),
      ...(on.taskQueue ? { taskQueue: on.taskQueue } : {}),
      model: { ...bed.model(), ...opts.model },
      tools: opts.tools ?? [],
    });
  bed.restartWorker = async () => {
    const { taskQueue, stores: workerStores } = bed.worker;
    await bed.worker.stop();
    bed.worker = await startWorker({ taskQueue, stores: workerStores });
  };

  beforeAll(async () => {
    ({ client: bed.client, connection: bed.connection } = await testClient(opts.payloadCodec));
    bed.server = await ScriptedModelServer.start();
    if (opts.worker === false) return;
    stores = await opts.stores?.();
    bed.worker = await startWorker({ stores: stores?.stores });
    bed.agio = new AgioClient(bed.client, { taskQueue: bed.worker.taskQueue, agents: opts.agents ?? [] });
    if (opts.bridge) {
      const bridgeOptions = typeof opts.bridge === 'object' ? opts.bridge : {};
      bed.bridge = await startBridge({
        stores: bed.worker.stores,
        ...bridgeOptions,
        client: bed.client,
        taskQueue: bed.worker.taskQueue,
        agents: opts.agents,
      });
    }
  });
  afterAll(async () => {
    await bed.bridge?.close();
    await bed.worker?.stop();
    await stores?.close();
    await bed.server?.close();
    await bed.connection?.close();
  });
  beforeEach(() => bed.server.reset());
  if (opts.strictModel !== false) {
    afterEach(() => {
      expect(bed.server.unexpected).toEqual([]);
      expect(bed.server.pending()).toBe(0);
    });
  }
  return bed;
}
