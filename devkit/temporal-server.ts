// A real Temporal server on demand, on free loopback ports with a SQLite file: the server binary itself
// (`go.temporal.io/server/cmd/server`), started with a config written here; used by the embedded `agio serve`, the
// tests and the benchmarks.
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallBinary, toolsBinaryPath, type BinarySpec } from './install-binary';
import { dynamicConfigArgs, dynamicConfigValues, dynamicConfigYaml } from './dynamic-config';
import { freePort, isPortFree, waitUntil } from './free-port';
import { startSupervised, type SupervisedProcess } from './supervised-process';
import { AGIO_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { searchAttributeTypes } from '../config/temporal';
import { temporalServerConfig, type TemporalMembershipPorts, type TemporalServicePorts } from './temporal-config';
import { optionalPackage } from '../common/optional-package';

/**
 * The Temporal server at the version Agio pins (README, "The two commands"). 1.32 is the first release Agio can use:
 * pinned runs move to a
 * new worker version when they continue as new (upgrade on continue-as-new) from server 1.30 on, and the Temporal
 * CLI releases that embed such a server (1.6 and later) cannot be built from the Go module proxy (their `cliext`
 * module is missing there), so Agio builds the server's own command.
 */
export const TEMPORAL_SERVER: BinarySpec = {
  name: 'temporal-server',
  envVar: 'TEMPORAL_SERVER_PATH',
  goModule: 'go.temporal.io/server',
  goPackage: 'go.temporal.io/server/cmd/server',
  version: 'v1.32.0',
};

/**
 * The Temporal CLI, as a client only: tests drive runs with it as a foreign client would, and operators use it for
 * what `agio` does not wrap. (Its own embedded server, 1.29, predates upgrade on continue-as-new.)
 */
export const TEMPORAL_CLI: BinarySpec = {
  name: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  goModule: 'github.com/temporalio/cli',
  goPackage: 'github.com/temporalio/cli/cmd/temporal',
  version: 'v1.5.1',
};

/** gRPC status codes the namespace setup expects. */
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

/** How long a dev server keeps closed runs. */
const RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The Go release the pinned server's go.mod asks for (it is built with GOTOOLCHAIN=local). */
const GO_NEEDED = '1.26.8';

/** No Temporal server binary here and no Go to build one: the message says what to install, or what to use instead. */
export class TemporalServerUnavailableError extends Error {
  override name = 'TemporalServerUnavailableError';
  constructor() {
    const target = toolsBinaryPath(TEMPORAL_SERVER);
    super(
      [
        `no Temporal server here (${TEMPORAL_SERVER.name} ${TEMPORAL_SERVER.version}), and no Go to build one. Either:`,
        `  - install Go ${GO_NEEDED} or later (https://go.dev/dl/) and run this again: the server is built once into`,
        `    ${target} (a few minutes; AGIO_TOOLS_DIR moves it);`,
        `  - or set ${TEMPORAL_SERVER.envVar} to a ${TEMPORAL_SERVER.name} ${TEMPORAL_SERVER.version} binary;`,
        `  - or use a Temporal server you already run (\`temporal server start-dev\`, a cluster, Temporal Cloud): point`,
        `    workers and clients at it with TEMPORAL_ADDRESS=host:port (createWorker registers Agio's search attributes).`,
      ].join('\n'),
    );
  }
}

/** Options for {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** SQLite file; default: a new file in a temporary directory (removed on stop). */
  dbFilename?: string;
  /** gRPC port; default: a free port. */
  port?: number;
  namespace?: string;
  /** Extra dynamic config values, on top of the tuned settings of dynamic-config.ts. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Start from Temporal's own defaults instead of the tuned settings (to measure the settings). */
  untuned?: boolean;
  /**
   * Without the binary and without Go: let the Temporal SDK download its dev server (`sdk`, the default), or throw
   * {@link TemporalServerUnavailableError}, which says what to install or use instead (`fail`, `agio dev`).
   */
  withoutGo?: 'sdk' | 'fail';
  log?: (msg: string) => void;
}

/** A running dev server. */
export interface TemporalDevServer {
  address: string;
  namespace: string;
  dbFilename: string;
  pid: number;
  stop(): Promise<void>;
}

/** Finds (or builds) the Temporal server and starts it; resolves once its namespace and search attributes are ready. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const binary = await findOrInstallBinary(TEMPORAL_SERVER, opts.log);
  if (!binary && opts.withoutGo === 'fail') throw new TemporalServerUnavailableError();
  if (!binary) return startWithSdkDownload(opts);
  const configDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-temporal-'));
  const dbFilename = path.resolve(opts.dbFilename ?? path.join(configDir, 'temporal.db'));
  await fs.promises.mkdir(path.dirname(dbFilename), { recursive: true });
  const namespace = opts.namespace ?? 'default';
  const port = opts.port ?? (await freePort());
  const { ports, membership } = await serverPorts(dbFilename, port);
  const dynamicConfigFile = path.join(configDir, 'dynamic-config.yaml');
  await fs.promises.writeFile(
    dynamicConfigFile,
    dynamicConfigYaml(dynamicConfigValues(opts.dynamicConfig, !opts.untuned)),
  );
  const configFile = path.join(configDir, 'config.yaml');
  await fs.promises.writeFile(configFile, serverConfig({ dbFilename, ports, membership, dynamicConfigFile }));
  const proc = startSupervised(binary, ['--config-file', configFile, '--allow-no-auth', 'start']);
  const address = `127.0.0.1:${port}`;
  try {
    await waitForTemporal(address, namespace, proc);
  } catch (err) {
    await proc.stop();
    await fs.promises.rm(configDir, { recursive: true, force: true });
    throw err;
  }
  return {
    address,
    namespace,
    dbFilename,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      await fs.promises.rm(configDir, { recursive: true, force: true });
    },
  };
}

type Ports = TemporalServicePorts;
type MembershipPorts = TemporalMembershipPorts;

/**
 * The services' ports. A server started again on the same database gets the ports it had when they are still free: its
 * services find each other through the membership rows the previous process left in the database, and rows pointing at
 * dead ports made a restart wait ~45 s for those joins to time out.
 */
async function serverPorts(
  dbFilename: string,
  frontend: number,
): Promise<{ ports: Ports; membership: MembershipPorts }> {
  const file = `${dbFilename}.ports.json`;
  const previous = await fs.promises.readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { ports: Ports; membership: MembershipPorts },
    () => undefined,
  );
  if (previous && previous.ports.frontend === frontend) {
    const others = [
      previous.ports.http,
      previous.ports.matching,
      previous.ports.history,
      previous.ports.worker,
      ...Object.values(previous.membership),
    ];
    if ((await Promise.all(others.map(isPortFree))).every(Boolean)) return previous;
  }
  const chosen = {
    ports: {
      frontend,
      http: await freePort(),
      matching: await freePort(),
      history: await freePort(),
      worker: await freePort(),
    },
    membership: {
      frontend: await freePort(),
      matching: await freePort(),
      history: await freePort(),
      worker: await freePort(),
    },
  };
  await fs.promises.writeFile(file, JSON.stringify(chosen));
  return chosen;
}

/**
 * The server's config: one process with all four services on loopback, one history shard, SQLite (schema set up on
 * first start).
 */
function serverConfig(o: {
  dbFilename: string;
  ports: Ports;
  membership: MembershipPorts;
  dynamicConfigFile: string;
}): string {
  const persistence = `  defaultStore: sqlite
  visibilityStore: sqlite
  numHistoryShards: 1
  datastores:
    sqlite:
      sql:
        pluginName: sqlite
        databaseName: ${JSON.stringify(o.dbFilename)}
        connectAddr: localhost
        connectProtocol: tcp
        connectAttributes: { cache: private, setup: "true", journal_mode: wal, synchronous: "1" }
        maxConns: 1
        maxIdleConns: 1`;
  return temporalServerConfig({
    persistence,
    ports: o.ports,
    membership: o.membership,
    dynamicConfigFile: o.dynamicConfigFile,
  });
}

/** Waits for the frontend, then registers the namespace and Agio's search attributes (both only once per database). */
export async function waitForTemporal(address: string, namespace: string, proc: SupervisedProcess): Promise<void> {
  await waitUntil(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`temporal-server exited early:\n${proc.output()}`);
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await ensureNamespace(connection, namespace);
        await connection.operatorService
          .addSearchAttributes({
            namespace,
            searchAttributes: searchAttributeTypes(),
          })
          .catch((err: { code?: number }) => {
            if (err.code !== ALREADY_EXISTS) throw err;
          });
      } finally {
        await connection.close();
      }
    },
    `Temporal server at ${address}`,
    120_000,
    200,
  );
}

async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if ((err as { code?: number }).code !== NOT_FOUND) throw err;
    await connection.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(RETENTION_MS) })
      .catch((e: { code?: number }) => {
        if (e.code !== ALREADY_EXISTS) throw e;
      });
    await connection.workflowService.describeNamespace({ namespace });
  }
}

/** Last resort when neither the CLI nor Go is available: the SDK downloads the dev server itself. */
async function startWithSdkDownload(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  // An optional peer dependency: a client-only install has neither it nor Go, and is told which to add.
  const { TestWorkflowEnvironment } = optionalPackage<typeof import('@temporalio/testing')>(
    '@temporalio/testing',
    'Without Go to build the Temporal server (https://go.dev/dl/), a dev server',
    ['@temporalio/testing@1.24.0'],
  );
  (opts.log ?? console.error)(
    'agio: no Temporal CLI and no Go toolchain; letting the Temporal SDK download the dev server',
  );
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: opts.port,
      dbFilename: opts.dbFilename,
      namespace: opts.namespace,
      searchAttributes: AGIO_SEARCH_ATTRIBUTES,
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
