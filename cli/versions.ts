// `agio versions`: a deployment's worker versions, and making one current (which asks runs pinned to older versions
// to move to it at their next safe point). Talks to Temporal directly, with the worker's environment.
import { Client } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { connectClient, loadEnv, temporalTarget } from '../config';
import { askRunsToUpgrade, listDeploymentVersions } from '../worker/deployment-versions';
import { setCurrentVersion } from '../worker/versioning';

const USAGE = `usage: agio versions [--deployment NAME]
       agio versions set-current <buildId> [--deployment NAME]

The deployment defaults to AGIO_DEPLOYMENT_NAME, else AGIO_TASK_QUEUE (what workers use). set-current makes new runs
start on that version and asks open runs pinned to other versions to move to it at their next safe point.`;

/** Runs the command; returns the exit code. */
export async function versionsCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { deployment: { type: 'string' } } });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [action, buildId] = parsed.positionals;
  if ((action !== undefined && action !== 'set-current') || (action === 'set-current' && !buildId)) {
    console.error(USAGE);
    return 2;
  }
  const env = loadEnv();
  const deployment = parsed.values.deployment ?? env.AGIO_DEPLOYMENT_NAME ?? env.AGIO_TASK_QUEUE;
  const temporal = temporalTarget(env);
  const connection = await connectClient(temporal);
  const client = new Client({ connection, namespace: temporal.namespace });
  try {
    if (action === 'set-current') {
      const { previous } = await setCurrentVersion(connection, temporal.namespace, deployment, buildId);
      console.log(`${deployment}: current version ${buildId}${previous ? ` (was ${previous})` : ''}`);
      const asked = await askRunsToUpgrade(client, deployment, buildId);
      console.log(
        `asked ${asked.length} open run(s) pinned to older versions to move at their next safe point${asked.length ? ':' : ''}`,
      );
      for (const run of asked) console.log(`  ${run.runId} (on ${run.from})`);
      return 0;
    }
    const versions = await listDeploymentVersions(connection, client, temporal.namespace, deployment);
    if (!versions.length) console.log(`${deployment}: no versions yet (no versioned worker has polled)`);
    for (const v of versions)
      console.log(
        `${v.current ? '*' : ' '} ${v.buildId.padEnd(20)} ${v.status.padEnd(9)} ${v.openRuns} open run(s) pinned`,
      );
    return 0;
  } finally {
    await connection.close();
  }
}
