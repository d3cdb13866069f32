// A real MongoDB-wire-protocol server on demand: FerretDB 1.24 with its SQLite backend, on loopback, in a
// temporary directory. Tests use it where no MongoDB runs; deployments use real MongoDB.
import fs from 'node:fs';
import path from 'node:path';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { startLoopbackServer } from './loopback-server';

/** FerretDB at the version Agio pins (README, "The two commands"). */
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
  if (!binary)
    throw new Error(
      'FerretDB is not installed and no Go toolchain was found to build it (set FERRETDB_PATH or install Go)',
    );
  const server = await startLoopbackServer({
    name: 'FerretDB',
    binary,
    args: (dir, port) => [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${dir}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
  });
  return { uri: `mongodb://127.0.0.1:${server.port}/`, pid: server.pid, stop: server.stop };
}
