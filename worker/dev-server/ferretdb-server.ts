// A real MongoDB-wire-protocol server on demand: FerretDB 1.24 with its SQLite backend, on loopback, in a
// temporary directory. Tests use it where no MongoDB runs; deployments use real MongoDB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { freePort, tcpReachable, waitUntil } from './free-port';
import { startSupervised } from './supervised-process';

/** FerretDB as DESIGN.md section 11 pins it. */
export const FERRETDB: BinarySpec = {
  name: 'ferretdb',
  envVar: 'FERRETDB_PATH',
  goModule: 'github.com/FerretDB/FerretDB',
  goPackage: 'github.com/FerretDB/FerretDB/cmd/ferretdb',
  version: 'v1.24.2',
  // FerretDB panics at start unless build/version/version.txt names its version; the module zip omits it.
  prepare: (dir) => fs.promises.writeFile(path.join(dir, 'build', 'version', 'version.txt'), 'v1.24.2\n'),
};

/** A running FerretDB. */
export interface FerretDbServer {
  uri: string;
  pid: number;
  stop(): Promise<void>;
}

/** Finds (or builds) FerretDB and starts it; resolves once it accepts connections. */
export async function startFerretDb(opts: { log?: (msg: string) => void } = {}): Promise<FerretDbServer> {
  const binary = await findOrInstallBinary(FERRETDB, opts.log);
  if (!binary) throw new Error('FerretDB is not installed and no Go toolchain was found to build it (set FERRETDB_PATH or install Go)');
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-ferretdb-'));
  const port = await freePort();
  const proc = startSupervised(binary, [
    '--handler=sqlite',
    `--sqlite-url=file:${dir}/`,
    `--listen-addr=127.0.0.1:${port}`,
    `--state-dir=${dir}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=error',
  ]);
  try {
    await waitUntil(async () => {
      if (proc.child.exitCode !== null) throw new Error(`ferretdb exited early:\n${proc.output()}`);
      await tcpReachable(port);
    }, `FerretDB on port ${port}`, 60_000, 100);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}
