// The Temporal Web UI beside a dev server that `agio serve` or `agio dev` started: it comes up in the background (its
// first start builds it with Go) without holding up the rest, and a failure to start is a line, not an error.
import type { DataDirLock } from '../devkit/data-dir-lock';
import { portOr } from '../devkit/free-port';
import { startTemporalUi, type TemporalUi } from '../devkit/temporal-ui';

/** Starts the UI for the server at `address` (on 8233 when free) in the background; returns what stops it. */
export function startWebUiBeside(
  address: string,
  lock: DataDirLock,
  log: (msg: string) => void = console.log,
): () => Promise<void> {
  let ui: TemporalUi | undefined;
  let stopped = false;
  void portOr(8233)
    .then((port) => startTemporalUi({ address, port, log }))
    .then(async (started) => {
      if (!started) return;
      if (stopped) return void started.stop();
      ui = started;
      await lock.recordChild('Temporal Web UI', started.pid, 'temporal-ui-server');
      log(`agio: Temporal Web UI at ${started.url}`);
    })
    .catch((err: Error) => log(`agio: the Temporal Web UI did not start: ${err.message}`));
  return async () => {
    stopped = true;
    await ui?.stop();
  };
}
