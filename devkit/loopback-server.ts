// A server binary Agio starts itself on loopback (FerretDB, NATS): a temporary directory of its own, a free port,
// supervised so it dies with us, ready once it accepts TCP connections; stopping it removes the directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, tcpReachable, waitUntil } from './free-port';
import { startSupervised } from './supervised-process';

/** A running loopback server. */
export interface LoopbackServer {
  port: number;
  pid: number;
  /** Stops it (SIGTERM, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

/** Starts `binary` with `args(dir, port)` and resolves once it listens on 127.0.0.1:port (within 60 s). */
export async function startLoopbackServer(opts: {
  name: string;
  binary: string;
  args: (dir: string, port: number) => string[];
  port?: number;
}): Promise<LoopbackServer> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `agio-${opts.name.toLowerCase()}-`));
  const port = opts.port ?? (await freePort());
  const proc = startSupervised(opts.binary, opts.args(dir, port));
  try {
    await waitUntil(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`${opts.name} exited early:\n${proc.output()}`);
        await tcpReachable(port);
      },
      `${opts.name} on port ${port}`,
      60_000,
      100,
    );
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    port,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}
