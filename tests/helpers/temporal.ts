// The one Temporal helper for integration tests: a client and an in-process Agio worker on a unique task
// queue, connected to the dev server the global setup started, using the prebuilt workflow bundle.
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataConverterOption } from '../../config/codec-keys';
import { createWorker, type AgioWorker, type CreateWorkerOptions } from '../../worker/create-worker';
import { quietRuntime } from '../../testing/test-environment';
import { testEnv } from './test-env';

/** A client for the test dev server (encoding payloads with `codec` when given); close its connection in afterAll. */
export async function testClient(codec?: PayloadCodec): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: testEnv('temporalAddress') });
  return { client: new Client({ connection, ...dataConverterOption(codec) }), connection };
}

/** A running in-process worker. */
export interface TestWorker extends AgioWorker {
  workspaceRoot: string;
  /** Shuts the worker down and waits until it has stopped. */
  stop(): Promise<void>;
}

/** Starts an Agio worker on a fresh task queue (unless one is given) with the test bundle (unless another is given). */
export async function startTestWorker(
  opts: Omit<CreateWorkerOptions, 'connection'> & { connection?: NativeConnection },
): Promise<TestWorker> {
  quietRuntime();
  const connection = opts.connection ?? (await NativeConnection.connect({ address: testEnv('temporalAddress') }));
  const workspaceRoot = opts.workspaceRoot ?? (await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-ws-')));
  const created = await createWorker({
    ...opts,
    connection,
    taskQueue: opts.taskQueue ?? `test-${randomUUID()}`,
    workspaceRoot,
    workflowBundle: opts.workflowBundle ?? { codePath: testEnv('workflowBundle') },
    // Test workers promote themselves (refusing an older build), as `agio versions promote` would.
    versioning: opts.versioning === false ? false : { makeCurrent: true, ...opts.versioning },
    workerOptions: { shutdownGraceTime: '1s', ...opts.workerOptions },
  });
  const running = created.worker.run();
  return {
    ...created,
    workspaceRoot,
    async stop() {
      if (created.worker.getState() === 'RUNNING') created.worker.shutdown();
      await running;
      await created.close();
      if (!opts.connection) await connection.close();
    },
  };
}

/** A unique workflow id with a readable prefix. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}
