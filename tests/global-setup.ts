// Jest global setup (integration project): one real Temporal dev server, one FerretDB, one NATS and one workflow
// bundle for the whole run; their addresses reach test files through environment variables.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFerretDb } from '../devkit/ferretdb-server';
import { startNatsServer } from '../devkit/nats-server';
import { findOrInstallBinary } from '../devkit/install-binary';
import { JAEGER } from '../devkit/jaeger-server';
import { TEMPORAL_CLI, startTemporalDevServer } from '../devkit/temporal-server';
import { writeWorkflowBundle } from '../devkit/workflow-bundle';
import { AGIO_WORKFLOWS } from '../worker/workflow-bundle-options';
import { TEST_ENV, type TestServers } from './helpers/test-env';

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-test-'));
  const [temporal, ferret, nats, bundlePath, agioBundlePath] = await Promise.all([
    // The Temporal CLI is a foreign client in some tests; built (first run only) beside the servers.
    findOrInstallBinary(TEMPORAL_CLI).then(() =>
      startTemporalDevServer({ dbFilename: path.join(dir, 'temporal.db'), dynamicConfig: TEST_DYNAMIC_CONFIG }),
    ),
    startFerretDb(),
    startNatsServer(),
    writeWorkflowBundle(require.resolve('./fixtures/test-workflows'), dir),
    // Agio's own workflows, as `agio serve` bundles them: every serve a test starts loads this file
    // (AGIO_WORKFLOW_BUNDLE) instead of running webpack again (about 3 s of CPU each).
    writeWorkflowBundle(AGIO_WORKFLOWS, dir, 'agio-workflow-bundle.js'),
    // Jaeger receives the tracing tests' spans; built (first run only: ~6 min on two cores) beside the servers.
    findOrInstallBinary(JAEGER),
  ]);
  process.env[TEST_ENV.temporalAddress] = temporal.address;
  process.env[TEST_ENV.temporalDbFile] = temporal.dbFilename;
  process.env[TEST_ENV.mongoUri] = ferret.uri;
  process.env[TEST_ENV.workflowBundle] = bundlePath;
  process.env[TEST_ENV.agioWorkflowBundle] = agioBundlePath;
  process.env[TEST_ENV.natsUrl] = nats.url;
  const servers: TestServers = { temporal, ferret, nats, dir };
  (globalThis as { __agioServers?: TestServers }).__agioServers = servers;
  if (!process.env.CI)
    console.log(
      `\nagio tests: Temporal ${temporal.address}, FerretDB ${ferret.uri}, NATS ${nats.url}, ready in ${Date.now() - started} ms`,
    );
}

/** Server settings that keep tests fast: no need to wait for real-world intervals. */
const TEST_DYNAMIC_CONFIG = {
  // A worker version's drainage (no open run pinned to it) is seen within a second, not three minutes.
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s',
};
