// A real Temporal dev server on demand (`temporal server start-dev`), on free loopback ports with a SQLite
// file; used by the embedded `agio serve`, the tests and the benchmarks.
import { Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { dynamicConfigArgs } from './dynamic-config';
import { freePort, waitUntil } from './free-port';
import { startSupervised, type SupervisedProcess } from './supervised-process';
import { RunSearchAttributes } from '../../common/search-attributes';

/** The Temporal CLI as DESIGN.md section 11 pins it. */
export const TEMPORAL_CLI: BinarySpec = {
  name: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  goModule: 'github.com/temporalio/cli',
  goPackage: 'github.com/temporalio/cli/cmd/temporal',
  version: 'v1.5.1',
};

/** Agio's search attributes (registered on start), all keywords. */
const SEARCH_ATTRIBUTE_NAMES = Object.values(RunSearchAttributes).map((key) => key.name);

/** Options for {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** SQLite file; default: a new file in a temporary directory (removed on stop). */
  dbFilename?: string;
  /** gRPC port; default: a free port. */
  port?: number;
  /** Serve the Web UI on this port (default: headless). */
  uiPort?: number;
  namespace?: string;
  /** Extra `--dynamic-config-value KEY=VALUE` entries, on top of the tuned settings of dynamic-config.ts. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Start from Temporal's own defaults instead of the tuned settings (to measure the settings). */
  untuned?: boolean;
  log?: (msg: string) => void;
}

/** A running dev server. */
export interface TemporalDevServer {
  address: string;
  namespace: string;
  dbFilename: string;
  pid: number;
  uiUrl?: string;
  stop(): Promise<void>;
}

/** Finds (or builds) the Temporal CLI and starts a dev server; resolves once it answers gRPC. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const binary = await findOrInstallBinary(TEMPORAL_CLI, opts.log);
  if (!binary) return startWithSdkDownload(opts);
  const tmpDir = opts.dbFilename ? undefined : await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-temporal-'));
  const dbFilename = opts.dbFilename ?? path.join(tmpDir!, 'temporal.db');
  await fs.promises.mkdir(path.dirname(dbFilename), { recursive: true });
  const namespace = opts.namespace ?? 'default';
  const port = opts.port ?? (await freePort());
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--http-port', String(await freePort()),
    '--metrics-port', String(await freePort()),
    '--db-filename', dbFilename,
    '--sqlite-pragma', 'journal_mode=wal',
    '--sqlite-pragma', 'synchronous=normal',
    '--namespace', namespace,
    '--log-level', 'error',
    ...SEARCH_ATTRIBUTE_NAMES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...dynamicConfigArgs(opts.dynamicConfig, !opts.untuned),
    ...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
  ];
  const proc = startSupervised(binary, args);
  const address = `127.0.0.1:${port}`;
  try {
    await waitForTemporal(address, namespace, proc);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    address,
    namespace,
    dbFilename,
    pid: proc.pid,
    uiUrl: opts.uiPort ? `http://127.0.0.1:${opts.uiPort}` : undefined,
    async stop() {
      await proc.stop();
      if (tmpDir) await fs.promises.rm(tmpDir, { recursive: true, force: true });
    },
  };
}

async function waitForTemporal(address: string, namespace: string, proc: SupervisedProcess): Promise<void> {
  await waitUntil(async () => {
    if (proc.child.exitCode !== null) throw new Error(`temporal exited early:\n${proc.output()}`);
    const connection = await Connection.connect({ address, connectTimeout: 1000 });
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } finally {
      await connection.close();
    }
  }, `Temporal dev server at ${address}`, 120_000, 200);
}

/** Last resort when neither the CLI nor Go is available: the SDK downloads the dev server itself. */
async function startWithSdkDownload(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  (opts.log ?? console.error)('agio: no Temporal CLI and no Go toolchain; letting the Temporal SDK download the dev server');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: opts.port,
      dbFilename: opts.dbFilename,
      namespace: opts.namespace,
      searchAttributes: Object.values(RunSearchAttributes),
      extraArgs: ['--log-level', 'error', ...dynamicConfigArgs(opts.dynamicConfig, !opts.untuned)],
    },
  });
  const address = env.address;
  return {
    address,
    namespace: opts.namespace ?? 'default',
    dbFilename: opts.dbFilename ?? '',
    pid: -1,
    stop: () => env.teardown(),
  };
}
