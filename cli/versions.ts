// `agio versions`: a deployment's worker versions, and promoting one (making it current, which asks runs pinned to
// other versions to move to it at their next safe point). Talks to Temporal directly, with the worker's environment.
import { Client } from '@temporalio/client';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { connectClient, dataConverterOption, loadEnv, payloadCodecFromEnv, temporalTarget } from '../config';
import { listDeploymentVersions, promote } from '../worker/deployment-versions';
import { OlderVersionError, UnknownVersionError } from '../worker/promotion';

const USAGE = `usage: agio versions [--deployment NAME]
       agio versions promote <buildId> [--force] [--deployment NAME]

The deployment defaults to AGIO_DEPLOYMENT_NAME, else AGIO_TASK_QUEUE (what workers use). promote (or its old name
set-current) makes new runs start on that version and asks open runs pinned to other versions to move to it at their
next safe point. It refuses a build older than the current one (whose workers first polled earlier): a rollback needs
--force.`;

/** Runs the command; returns the exit code. */
export async function versionsCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { deployment: { type: 'string' }, force: { type: 'boolean' } },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [action, buildId] = parsed.positionals;
  const promoting = action === 'promote' || action === 'set-current';
  if ((action !== undefined && !promoting) || (promoting && !buildId)) {
    console.error(USAGE);
    return 2;
  }
  const env = loadEnv();
  const deployment = parsed.values.deployment ?? env.AGIO_DEPLOYMENT_NAME ?? env.AGIO_TASK_QUEUE;
  const temporal = temporalTarget(env);
  const connection = await connectClient(temporal);
  const client = new Client({
    connection,
    namespace: temporal.namespace,
    ...dataConverterOption(payloadCodecFromEnv(env)),
  });
  try {
    if (promoting)
      return await promoteCommand(connection, temporal.namespace, deployment, buildId, !!parsed.values.force);
    const versions = await listDeploymentVersions(connection, client, temporal.namespace, deployment);
    if (!versions.length) console.log(`${deployment}: no versions yet (no versioned worker has polled)`);
    for (const v of versions)
      console.log(
        `${v.current ? '*' : ' '} ${v.buildId.padEnd(20)} ${v.status.padEnd(9)} first polled ${v.firstPolled.toISOString()}  ${v.openRuns} open run(s) pinned`,
      );
    return 0;
  } finally {
    await connection.close();
  }
}

async function promoteCommand(
  connection: Parameters<typeof promote>[0],
  namespace: string,
  deployment: string,
  buildId: string,
  force: boolean,
): Promise<number> {
  const who = `${os.userInfo().username}@${os.hostname()}`;
  let done;
  try {
    done = await promote(connection, namespace, deployment, buildId, {
      force,
      identity: `agio versions promote${force ? ' --force' : ''} (${who})`,
    });
  } catch (err) {
    if (!(err instanceof OlderVersionError || err instanceof UnknownVersionError)) throw err;
    console.error(`${deployment}: ${err.message}`);
    return 1;
  }
  if (done.rollback)
    console.warn(`${deployment}: forced rollback from ${done.previous} to the older ${buildId} by ${who}`);
  console.log(
    `${deployment}: current version ${buildId}${done.changed ? (done.previous ? ` (was ${done.previous})` : '') : ' (already)'}`,
  );
  console.log(
    `asked ${done.asked.length} open run(s) pinned to other versions to move at their next safe point${done.asked.length ? ':' : ''}`,
  );
  for (const run of done.asked.slice(0, 20)) console.log(`  ${run.workflowId} (on ${run.from})`);
  if (done.asked.length > 20) console.log(`  … and ${done.asked.length - 20} more`);
  return 0;
}
