// Records the histories the replay tests use: `npm run record-histories` runs, on a fresh dev server with the scripted
// model, each scenario with a history missing from the current release's directory (histories/<package.json version>)
// and writes its histories as JSON (`-- --all` records all of them again). Earlier releases' directories are never
// written: histories recorded by older code are the point of replay tests.
import {
  Client,
  Connection,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection } from '@temporalio/worker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient } from '../../client/agio-client';
import { workflowTypeFor } from '../../common';
import { createWorker } from '../../worker/create-worker';
import { startTemporalDevServer } from '../../devkit/temporal-server';
import { ScriptedModelServer } from '../../devkit/scripted-model-server';
import { currentRelease, releaseDir } from './fixtures';
import { longLivedScenarios } from './long-lived-scenarios';
import { recordingsOf, workflowIdOf, type Execution, type Scenario } from './scenario';
import { shortLivedScenarios } from './short-lived-scenarios';
import { integrationScenarios, replayCallbackTool } from './integration-scenarios';
import { rescueProtocolScenarios } from './rescue-protocol-scenarios';
import type { AgentByNameInput } from '../../common/by-name';

const TASK_QUEUE = 'record';
const scenarios: Scenario[] = [
  ...shortLivedScenarios,
  ...longLivedScenarios,
  ...integrationScenarios,
  ...rescueProtocolScenarios,
];

async function main(): Promise<void> {
  const dir = releaseDir(currentRelease());
  const recorded = (s: Scenario) => recordingsOf(s).every((r) => fs.existsSync(path.join(dir, `${r.name}.json`)));
  const missing = scenarios.filter((s) => process.argv.includes('--all') || !recorded(s));
  if (!missing.length) return console.log(`every scenario is recorded in ${path.relative(process.cwd(), dir)}`);
  fs.mkdirSync(dir, { recursive: true });

  const temporal = await startTemporalDevServer();
  const model = await ScriptedModelServer.start();
  const nativeConnection = await NativeConnection.connect({ address: temporal.address });
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const agio = new AgioClient(client, { taskQueue: TASK_QUEUE });
  const { worker, current } = await createWorker({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    model: { baseURL: model.baseURL, apiKey: 'test', defaultModel: 'scripted' },
    workspaceRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'agio-record-')),
    // The agents scenarios start by name (resolved by the worker).
    agents: scenarios.filter((s) => s.byName).map((s) => s.args[0].agent),
    // The callback tool scenario's tool, and URLs nobody calls (the scenario completes it through the client).
    tools: [replayCallbackTool],
    callbacks: { secret: 'replay-recorder-callback-secret', baseUrl: 'http://127.0.0.1:9' },
  });
  try {
    await worker.runUntil(async () => {
      // Runs start on the worker's version once it is current (as they would in production).
      await current;
      for (const scenario of missing) await record(scenario, dir, client, agio, model);
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await model.close();
    await temporal.stop();
  }
}

/** Runs one scenario to its end and writes its histories; fails if it ends otherwise or leaves model turns unused. */
async function record(
  scenario: Scenario,
  dir: string,
  client: Client,
  agio: AgioClient,
  model: ScriptedModelServer,
): Promise<void> {
  model.reset();
  scenario.script(model);
  const workflowId = workflowIdOf(scenario);
  const type = workflowTypeFor(scenario.args[0].agent.kind);
  const [{ agent, input }] = scenario.args;
  const handle = scenario.byName
    ? await client.workflow.start('agentByName', {
        taskQueue: TASK_QUEUE,
        workflowId,
        args: [{ agentName: agent.name, input } satisfies AgentByNameInput],
      })
    : await client.workflow.start(type, { taskQueue: TASK_QUEUE, workflowId, args: scenario.args });
  const ended = handle.result().catch(() => undefined); // how it ended is read below
  await Promise.all([scenario.drive?.(agio.getHandle(workflowId), model), ended]);
  const status = (await handle.describe()).status.name.toLowerCase();
  const expected = scenario.ends ?? 'completed';
  if (status !== expected) throw new Error(`${scenario.name}: the run ended ${status}, not ${expected}`);
  if (model.pending() || model.unexpected.length) {
    throw new Error(
      `${scenario.name}: ${model.pending()} scripted model turns unused, ${model.unexpected.length} requests unexpected`,
    );
  }

  for (const recording of recordingsOf(scenario)) {
    const history = await executionHandle(client, handle, recording.of).fetchHistory();
    fs.writeFileSync(
      path.join(dir, `${recording.name}.json`),
      JSON.stringify(JSON.parse(historyToJSON(history)), null, 1) + '\n',
    );
    console.log(`recorded ${recording.name}.json (${history.events?.length} events)`);
  }
}

/** The handle of one execution of a scenario's run. */
function executionHandle(client: Client, root: WorkflowHandleWithFirstExecutionRunId, of: Execution): WorkflowHandle {
  if (of === 'first run') return client.workflow.getHandle(root.workflowId, root.firstExecutionRunId);
  if (of === 'last run') return client.workflow.getHandle(root.workflowId);
  return client.workflow.getHandle(`${root.workflowId}/${of.child}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
