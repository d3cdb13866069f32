// Temporal on PostgreSQL, as docker-compose.yml runs it but without containers: the server's own SQL tool
// (`temporal-sql-tool`, built with Go from the server module) creates and updates the two schemas, then the server
// binary starts with a config naming the cluster, and the namespace and Agio's search attributes are registered.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../platform/project-root';
import { freePort, isPortFree } from './free-port';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { POSTGRES_PASSWORD, POSTGRES_USER, type PostgresServer } from './postgresql-server';
import { startSupervised } from './supervised-process';
import { temporalServerConfig, type TemporalServicePorts } from './temporal-config';
import { TEMPORAL_SERVER, waitForTemporal } from './temporal-server';

const run = promisify(execFile);

/** The server's schema tool (`cmd/tools/sql` of the same module and version as the server). */
export const TEMPORAL_SQL_TOOL: BinarySpec = {
  name: 'temporal-sql-tool',
  envVar: 'TEMPORAL_SQL_TOOL_PATH',
  goModule: TEMPORAL_SERVER.goModule,
  goPackage: `${TEMPORAL_SERVER.goModule}/cmd/tools/sql`,
  version: TEMPORAL_SERVER.version,
};

/** Temporal's two databases and the schema (embedded in the tool) each one gets. */
const DATABASES = { temporal: 'postgresql/v12/temporal', temporal_visibility: 'postgresql/v12/visibility' };

/** A running Temporal server on PostgreSQL. */
export interface TemporalOnPostgres {
  address: string;
  namespace: string;
  pid: number;
  stop(): Promise<void>;
}

/** Builds (first run only) the server and its SQL tool; returns their paths. */
export async function temporalBinaries(log?: (msg: string) => void): Promise<{ server: string; sqlTool: string }> {
  const server = await findOrInstallBinary(TEMPORAL_SERVER, log);
  const sqlTool = await findOrInstallBinary(TEMPORAL_SQL_TOOL, log);
  if (!server || !sqlTool) throw new Error('the Temporal server is not installed and no Go toolchain was found');
  return { server, sqlTool };
}

/**
 * What deploy/temporal/setup-postgres.sh does with the admin-tools image: creates both databases when missing,
 * sets up schema versioning, and updates each schema to the tool's latest version (safe to run again).
 */
export async function setupTemporalSchema(sqlTool: string, postgres: PostgresServer): Promise<void> {
  const common = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(postgres.port)];
  const auth = ['-u', POSTGRES_USER, '--pw', POSTGRES_PASSWORD];
  const tool = (db: string, ...args: string[]) => run(sqlTool, [...common, ...auth, '--db', db, ...args]);
  for (const [db, schema] of Object.entries(DATABASES)) {
    await postgres.createDatabase(db);
    // Fails when the versioning tables exist already (a second start); update-schema then finds them.
    await tool(db, 'setup-schema', '-v', '0.0').catch(() => undefined);
    await tool(db, 'update-schema', '--schema-name', schema).catch((err: { stderr?: string; message: string }) => {
      throw new Error(`temporal-sql-tool update-schema of ${db} failed: ${err.stderr || err.message}`);
    });
  }
}

/**
 * Starts the server on `postgres` (schemas set up first) with docker-compose's dynamic config plus `dynamicConfig`,
 * on a free loopback port; resolves once the namespace and Agio's search attributes are registered.
 */
export async function startTemporalOnPostgres(opts: {
  postgres: PostgresServer;
  dir: string;
  namespace?: string;
  dynamicConfig?: Record<string, string | number | boolean>;
  log?: (msg: string) => void;
}): Promise<TemporalOnPostgres> {
  const { server, sqlTool } = await temporalBinaries(opts.log);
  await setupTemporalSchema(sqlTool, opts.postgres);
  const namespace = opts.namespace ?? 'default';
  await fs.promises.mkdir(opts.dir, { recursive: true });
  const dynamicConfigFile = path.join(opts.dir, 'dynamic-config.yaml');
  const composeSettings = await fs.promises.readFile(
    path.join(projectRoot(), 'deploy', 'temporal', 'dynamic-config.yaml'),
    'utf8',
  );
  const extra = Object.entries(opts.dynamicConfig ?? {}).map(([k, v]) => `${k}:\n  - value: ${JSON.stringify(v)}\n`);
  await fs.promises.writeFile(dynamicConfigFile, composeSettings + extra.join(''));
  const ports = {
    frontend: await freePort(),
    http: await freePort(),
    matching: await freePort(),
    history: await freePort(),
    worker: await freePort(),
  };
  const membership = [await membershipPort(), await membershipPort(), await membershipPort(), await membershipPort()];
  const configFile = path.join(opts.dir, 'temporal.yaml');
  await fs.promises.writeFile(
    configFile,
    serverConfig({ postgresPort: opts.postgres.port, ports, membership, dynamicConfigFile }),
  );
  const proc = startSupervised(server, ['--config-file', configFile, '--allow-no-auth', 'start']);
  const address = `127.0.0.1:${ports.frontend}`;
  let watching: NodeJS.Timeout | undefined;
  // The guard outlives a server that died at start; its last words say why, so stop waiting at once.
  const died = new Promise<never>((_, reject) => {
    watching = setInterval(() => {
      if (proc.output().includes('"level":"fatal"')) reject(new Error('temporal-server stopped with a fatal error'));
    }, 200);
  });
  try {
    await Promise.race([waitForTemporal(address, namespace, proc), died]);
  } catch (err) {
    await proc.stop();
    throw new Error(`${(err as Error).message}\ntemporal-server said:\n${proc.output()}`);
  } finally {
    clearInterval(watching);
  }
  return { address, namespace, pid: proc.pid, stop: () => proc.stop() };
}

/** Membership ports handed out here; the server stores them in a SMALLINT column, so they stay below 32768. */
const membershipPorts = new Set<number>();

/** A free loopback port in 20000-32767 (below Linux's ephemeral range, and within PostgreSQL's SMALLINT). */
async function membershipPort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    if (membershipPorts.has(port) || !(await isPortFree(port))) continue;
    membershipPorts.add(port);
    return port;
  }
}

/** The server's config: the module's development-postgres12.yaml, on loopback ports, four history shards. */
function serverConfig(o: {
  postgresPort: number;
  ports: TemporalServicePorts;
  membership: number[];
  dynamicConfigFile: string;
}): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "127.0.0.1:${o.postgresPort}"
        connectProtocol: tcp
        user: ${POSTGRES_USER}
        password: ${POSTGRES_PASSWORD}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const persistence = `  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${store('temporal', 20)}
    postgres-visibility:${store('temporal_visibility', 4)}`;
  const [frontend, matching, history, worker] = o.membership;
  return temporalServerConfig({
    persistence,
    ports: o.ports,
    membership: { frontend, matching, history, worker },
    dynamicConfigFile: o.dynamicConfigFile,
  });
}
