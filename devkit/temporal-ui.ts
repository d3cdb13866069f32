// The Temporal Web UI beside `agio serve`'s server: the UI server's own command (`github.com/temporalio/ui-server`),
// built with Go on first use like the server, with a config written here pointing it at the server's frontend.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { waitUntil } from './free-port';
import { startSupervised } from './supervised-process';

/** The UI release the Temporal CLI 1.9 embeds. */
export const TEMPORAL_UI: BinarySpec = {
  name: 'temporal-ui-server',
  envVar: 'TEMPORAL_UI_SERVER_PATH',
  goModule: 'github.com/temporalio/ui-server/v2',
  goPackage: 'github.com/temporalio/ui-server/v2/cmd/server',
  version: 'v2.54.1',
};

/** A running Web UI. */
export interface TemporalUi {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Finds (or builds) the UI server and starts it on `port` for the server at `address`; undefined without Go. */
export async function startTemporalUi(opts: {
  address: string;
  port: number;
  log?: (msg: string) => void;
}): Promise<TemporalUi | undefined> {
  const binary = await findOrInstallBinary(TEMPORAL_UI, opts.log);
  if (!binary) return undefined;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-temporal-ui-'));
  await fs.promises.writeFile(
    path.join(dir, 'agio.yaml'),
    [
      `temporalGrpcAddress: ${opts.address}`,
      `port: ${opts.port}`,
      'host: 127.0.0.1',
      'enableUi: true',
      'publicPath: ""',
      'defaultNamespace: default',
      'hideLogs: true',
      'disableNewsFetch: true',
      'cors:',
      '  cookieInsecure: true',
      '',
    ].join('\n'),
  );
  const proc = startSupervised(binary, ['--root', dir, '--config', '.', '--env', 'agio', 'start']);
  const url = `http://127.0.0.1:${opts.port}`;
  const stop = async () => {
    await proc.stop();
    await fs.promises.rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`temporal-ui-server exited early:\n${proc.output()}`);
        const res = await fetch(url);
        if (!res.ok) throw new Error(`UI answered ${res.status}`);
      },
      `Temporal Web UI at ${url}`,
      60_000,
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: proc.pid, stop };
}
