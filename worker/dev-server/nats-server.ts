// A real streaming engine on demand: NATS server with JetStream, on loopback, in a temporary directory. Tests and
// benchmarks use it for the live lane between separate workers and bridges; deployments run their own NATS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { freePort, tcpReachable, waitUntil } from './free-port';
import { startSupervised } from './supervised-process';

/** NATS server, built from its Go module when missing. */
export const NATS_SERVER: BinarySpec = {
  name: 'nats-server',
  envVar: 'NATS_SERVER_PATH',
  goModule: 'github.com/nats-io/nats-server/v2',
  goPackage: 'github.com/nats-io/nats-server/v2',
  version: 'v2.12.15',
};

/** A running NATS server. */
export interface NatsServer {
  url: string;
  pid: number;
  /** Stops it (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
}

/** Finds (or builds) nats-server and starts it with JetStream; resolves once it accepts connections. */
export async function startNatsServer(opts: { log?: (msg: string) => void; port?: number } = {}): Promise<NatsServer> {
  const binary = await findOrInstallBinary(NATS_SERVER, opts.log);
  if (!binary) throw new Error('nats-server is not installed and no Go toolchain was found to build it (set NATS_SERVER_PATH or install Go)');
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-nats-'));
  const port = opts.port ?? (await freePort());
  const proc = startSupervised(binary, ['--addr', '127.0.0.1', '--port', String(port), '--jetstream', '--store_dir', dir, '--http_port', '0']);
  try {
    await waitUntil(async () => {
      if (proc.child.exitCode !== null) throw new Error(`nats-server exited early:\n${proc.output()}`);
      await tcpReachable(port);
    }, `NATS on port ${port}`, 60_000, 100);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}
