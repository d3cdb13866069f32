// A real streaming engine on demand: NATS server with JetStream, on loopback, in a temporary directory. Tests and
// benchmarks use it for the live lane between separate workers and bridges; deployments run their own NATS.
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { startLoopbackServer } from './loopback-server';

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
  if (!binary)
    throw new Error(
      'nats-server is not installed and no Go toolchain was found to build it (set NATS_SERVER_PATH or install Go)',
    );
  const server = await startLoopbackServer({
    name: 'NATS',
    binary,
    port: opts.port,
    args: (dir, port) => [
      '--addr',
      '127.0.0.1',
      '--port',
      String(port),
      '--jetstream',
      '--store_dir',
      dir,
      '--http_port',
      '0',
    ],
  });
  return { url: `nats://127.0.0.1:${server.port}`, pid: server.pid, stop: server.stop };
}
