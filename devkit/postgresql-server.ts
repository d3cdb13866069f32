// A private PostgreSQL cluster on demand (Debian's `postgresql` package, which scripts/ensure-postgresql installs):
// initdb into a directory of its own, started with pg_ctl on a loopback port, stopped with us; for the production
// stack (devkit/production-stack.ts), where Temporal and FerretDB both keep their data in it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, tcpReachable, waitUntil } from './free-port';
import { startSupervised, type SupervisedProcess } from './supervised-process';

const run = promisify(execFile);

/** The role every client of the stack uses (Temporal, its schema tool, FerretDB), as in docker-compose.yml. */
export const POSTGRES_USER = 'temporal';
/** That role's password. */
export const POSTGRES_PASSWORD = 'temporal';

/** A running cluster. */
export interface PostgresServer {
  port: number;
  /** `postgres://temporal:temporal@127.0.0.1:PORT/<database>`. */
  url(database: string): string;
  /** Creates a database unless it exists. */
  createDatabase(name: string): Promise<void>;
  /** `pg_ctl restart -m fast`: every connection is dropped, the cluster is back once this resolves. */
  restart(): Promise<void>;
  /** Stops the cluster (fast shutdown) and removes nothing: the directory belongs to the caller. */
  stop(): Promise<void>;
}

/**
 * The binaries of the newest PostgreSQL Debian installs (/usr/lib/postgresql/<major>/bin), or of
 * `AGIO_POSTGRESQL_BIN`; throws naming the script that installs them.
 */
export function postgresBinDir(): string {
  const explicit = process.env.AGIO_POSTGRESQL_BIN;
  if (explicit) return explicit;
  const base = '/usr/lib/postgresql';
  const majors = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length)
    throw new Error(
      'PostgreSQL is not installed: run scripts/ensure-postgresql (Debian: apt-get install postgresql) or set AGIO_POSTGRESQL_BIN',
    );
  return path.join(base, majors[0], 'bin');
}

/** Runs a PostgreSQL binary; as root, as the `postgres` user (initdb and the server refuse to run as root). */
function pg(bin: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const command = path.join(postgresBinDir(), bin);
  const asRoot = process.getuid?.() === 0;
  return run(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, {
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Hands `dir` to the `postgres` user when we are root (its parents must let that user through). */
async function ownForPostgres(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await run('chown', ['-R', 'postgres:postgres', dir]);
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const { mode } = await fs.promises.stat(d);
    if ((mode & 0o001) === 0) await fs.promises.chmod(d, mode | 0o011);
  }
}

/**
 * Initialises a cluster in `dir` (empty or missing) with the `temporal` role, starts it on a free loopback port
 * (or `port`), and resolves once it accepts connections. The postmaster is tied to this process: when we exit, even
 * by SIGKILL, a guard stops it.
 */
export async function startPostgres(dir: string, opts: { port?: number } = {}): Promise<PostgresServer> {
  const data = path.join(dir, 'data');
  const sockets = path.join(dir, 'sockets');
  const log = path.join(dir, 'postgresql.log');
  await fs.promises.mkdir(sockets, { recursive: true });
  await fs.promises.writeFile(path.join(dir, 'pwfile'), `${POSTGRES_PASSWORD}\n`);
  await fs.promises.writeFile(log, '');
  await ownForPostgres(dir);
  if (!fs.existsSync(path.join(data, 'PG_VERSION'))) {
    await pg('initdb', [
      '-D',
      data,
      '-U',
      POSTGRES_USER,
      `--pwfile=${path.join(dir, 'pwfile')}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
  }
  const port = opts.port ?? (await freePort());
  // fsync off: the stack is for tests, and a durable cluster costs seconds per test on a loaded 2-core machine.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${sockets} -c max_connections=200 -c fsync=off`;
  const ctl = (...args: string[]) => pg('pg_ctl', ['-D', data, '-l', log, ...args]);
  const ready = () =>
    waitUntil(() => tcpReachable(port), `PostgreSQL on port ${port}`, 60_000, 100).then(() =>
      waitUntil(() => pg('pg_isready', ['-h', '127.0.0.1', '-p', String(port)]), 'PostgreSQL ready', 60_000, 100),
    );
  await ctl('-o', options, '-w', 'start');
  // pg_ctl leaves the postmaster running on its own; this guard stops it when we exit, however we exit.
  const stopCommand = [...(process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [])]
    .concat([path.join(postgresBinDir(), 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'])
    .map((a) => `'${a}'`)
    .join(' ');
  const guard: SupervisedProcess = startSupervised('bash', [
    '-c',
    `trap "${stopCommand} >/dev/null 2>&1; exit 0" TERM; while sleep 0.5; do :; done`,
  ]);
  await ready();
  const psql = (database: string, sql: string) =>
    pg('psql', ['-h', sockets, '-p', String(port), '-U', POSTGRES_USER, '-d', database, '-tA', '-c', sql]);
  return {
    port,
    url: (database) => `postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const { stdout } = await psql('postgres', `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
      if (stdout.trim() !== '1') await psql('postgres', `CREATE DATABASE "${name}"`);
    },
    async restart() {
      await ctl('-o', options, '-m', 'fast', '-w', 'restart');
      await ready();
    },
    async stop() {
      await ctl('-m', 'fast', '-w', 'stop').catch(() => undefined);
      await guard.stop();
    },
  };
}
