// `agio dev`: a Temporal server alone, for developing against (your own worker and backend connect to it): the server
// `agio serve` starts, with the namespace and Agio's search attributes registered and its data kept between starts.
// Ctrl-C stops it.
import path from 'node:path';
import fs from 'node:fs';
import { RunSearchAttributes } from '../common/search-attributes';
import { lockDataDir } from '../devkit/data-dir-lock';
import { portOr } from '../devkit/free-port';
import { startTemporalDevServer } from '../devkit/temporal-server';
import { DEFAULT_TEMPORAL_ADDRESS } from '../config/temporal';
import { startWebUiBeside } from './web-ui';

/** Where `agio dev` keeps its server's data when neither `--data` nor AGIO_DATA_DIR says. */
export const DEV_DATA_DIR = '.agio-dev';

/** Options of {@link dev}. */
export interface DevOptions {
  /** gRPC port (default 7233 when free, else a free one). */
  port?: number;
  /** Data directory (default AGIO_DATA_DIR, else `.agio-dev`). */
  dataDir?: string;
  /** The Temporal Web UI beside it (default: AGIO_WEB_UI, which defaults to true). */
  ui?: boolean;
}

/** Runs the server until SIGINT/SIGTERM. */
export async function dev(opts: DevOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dataDir = path.resolve(opts.dataDir ?? (env.AGIO_DATA_DIR || DEV_DATA_DIR));
  const namespace = env.TEMPORAL_NAMESPACE || 'default';
  if (env.TEMPORAL_ADDRESS)
    console.log(`agio dev: TEMPORAL_ADDRESS=${env.TEMPORAL_ADDRESS} is set; this server is another one (below)`);
  await fs.promises.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dataDir);
  const cleanups: (() => Promise<unknown>)[] = [() => lock.release()];
  try {
    const port = opts.port ?? (await portOr(7233));
    console.log('agio dev: starting the Temporal server…');
    const server = await startTemporalDevServer({
      dbFilename: path.join(dataDir, 'temporal.db'),
      port,
      namespace,
      withoutGo: 'fail',
      log: console.log,
    });
    cleanups.push(() => server.stop());
    await lock.recordChild('Temporal dev server', server.pid, 'temporal-server');
    if (opts.ui ?? env.AGIO_WEB_UI !== 'false') cleanups.push(startWebUiBeside(server.address, lock));
    const isDefault = server.address === DEFAULT_TEMPORAL_ADDRESS;
    const taken = opts.port === undefined && !isDefault;
    console.log(
      [
        '',
        'agio dev: Temporal server running',
        `  address    ${server.address}${isDefault ? '   (the default: workers and clients find it without TEMPORAL_ADDRESS)' : ''}`,
        `  namespace  ${namespace}, with search attributes ${Object.values(RunSearchAttributes)
          .map((a) => a.name)
          .join(', ')}`,
        `  data       ${dataDir}   (--data or AGIO_DATA_DIR; default ${DEV_DATA_DIR})`,
        ...(taken ? ['', `7233 is taken: run your worker and backend with TEMPORAL_ADDRESS=${server.address}`] : []),
        'Ctrl-C stops it.',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    console.log('\nagio dev: stopping…');
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => console.error(err));
  }
  console.log('agio dev: stopped');
}
