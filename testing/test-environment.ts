// What a user's own tests need to run their agents for real: a Temporal server (a dev server started here, or one
// given), an Agio worker with their agents and tools on a task queue of its own, a client, and the scripted
// OpenAI-compatible model server as the worker's model. Test-runner agnostic: call it in beforeAll, close in afterAll.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelConfig } from '../activities/model/call-model';
import type { ToolDefinition } from '../activities/tools/define-tool';
import { AgioClient } from '../client/agio-client';
import type { AnyAgentSpec } from '../common';
import { ScriptedModelServer } from '../devkit/scripted-model-server';
import { startTemporalDevServer, type TemporalDevServer } from '../devkit/temporal-server';
import { loadAgentsFile } from '../worker/agents-file';
import { createWorker, type AgioWorker, type CreateWorkerOptions } from '../worker/create-worker';

/** Options of {@link startTestEnvironment}. */
export interface TestEnvironmentOptions {
  /** The worker's agents (specs). */
  agents?: AnyAgentSpec[];
  /** An agents file (YAML) whose agents the worker has too. */
  agentsFile?: string;
  /** The worker's own tools (besides the built-in ones). */
  tools?: ToolDefinition[];
  /**
   * A running Temporal server to use (host:port); default: AGIO_TEST_TEMPORAL_ADDRESS, else a dev server started
   * here on free ports (the first start builds or downloads it once) and stopped by `close()`.
   */
  temporalAddress?: string;
  /** Namespace (default `default`). */
  namespace?: string;
  /** Model settings of the worker; default: the scripted model server (`env.model`). */
  model?: ModelConfig;
  /** More worker options. */
  worker?: Omit<CreateWorkerOptions, 'connection' | 'agents' | 'tools' | 'model' | 'namespace'>;
  /** Keep the Temporal SDK's log at its default level (default: warnings only, if no logger was installed yet). */
  verbose?: boolean;
}

/** A running test environment. */
export interface TestEnvironment {
  /** The scripted model server the worker talks to: script answers with `script`/`scriptFor`, read `requests`. */
  model: ScriptedModelServer;
  /** A client on the worker's task queue: `agio.start('name', input)`. */
  agio: AgioClient;
  /** The Temporal client under `agio`. */
  client: Client;
  /** The running worker. */
  worker: AgioWorker;
  /** The Temporal server's address (host:port). */
  temporalAddress: string;
  taskQueue: string;
  /** Stops the worker, the model server and the dev server started here, and removes the workspaces. */
  close(): Promise<void>;
}

/** Starts a Temporal server (unless given), the scripted model server, an Agio worker and a client. */
export async function startTestEnvironment(opts: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  if (!opts.verbose) quietRuntime();
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    let temporalAddress = opts.temporalAddress ?? process.env.AGIO_TEST_TEMPORAL_ADDRESS;
    if (!temporalAddress) {
      const server: TemporalDevServer = await startTemporalDevServer({ namespace: opts.namespace });
      closers.push(() => server.stop());
      temporalAddress = server.address;
    }
    const model = await ScriptedModelServer.start();
    closers.push(() => model.close());
    const workspaceRoot = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-test-'));
    closers.push(() => fs.promises.rm(workspaceRoot, { recursive: true, force: true }));
    const connection = await NativeConnection.connect({ address: temporalAddress });
    closers.push(() => connection.close());
    const fromFile = opts.agentsFile ? loadAgentsFile(opts.agentsFile).agents : [];
    const worker = await createWorker({
      workspaceRoot,
      taskQueue: `agio-test-${randomUUID()}`,
      shutdownGraceTime: '1s',
      // A test worker makes its own version current, as `agio versions promote` would.
      versioning: { makeCurrent: true },
      ...opts.worker,
      connection,
      namespace: opts.namespace,
      agents: [...(opts.agents ?? []), ...fromFile],
      tools: opts.tools ?? [],
      model: opts.model ?? { baseURL: model.baseURL, apiKey: 'scripted', defaultModel: 'scripted' },
    });
    closers.push(() => worker.close());
    const running = worker.worker.run();
    closers.push(async () => {
      if (worker.worker.getState() === 'RUNNING') worker.worker.shutdown();
      await running;
    });
    const clientConnection = await Connection.connect({ address: temporalAddress });
    closers.push(() => clientConnection.close());
    const client = new Client({ connection: clientConnection, namespace: opts.namespace });
    const agio = new AgioClient(client, { taskQueue: worker.taskQueue });
    return { model, agio, client, worker, temporalAddress, taskQueue: worker.taskQueue, close };
  } catch (err) {
    await close();
    throw err;
  }
}

let runtimeInstalled = false;
/** Installs a Temporal runtime that logs warnings only, unless one is installed already. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // a runtime is installed already (the user's own)
  }
}
