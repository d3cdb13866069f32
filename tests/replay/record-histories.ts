// Records the histories the replay tests use: `npm run record-histories` runs each scenario on a fresh dev
// server with the scripted model and writes its history as JSON. Re-record only for deliberate changes.
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection } from '@temporalio/worker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineAgent } from '../../common';
import { createWorker } from '../../worker/create-worker';
import { startTemporalDevServer } from '../../worker/dev-server/temporal-server';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../worker/dev-server/scripted-model-server';

/** One recorded scenario: a workflow run and the model turns it needs. */
interface Scenario {
  file: string;
  workflowId: string;
  script: (model: ScriptedModelServer) => void;
  args: unknown[];
}

const scenarios: Scenario[] = [
  {
    file: 'agent-run-parallel-tools.json',
    workflowId: 'replay-agent-run-parallel-tools',
    script: (model) =>
      model.script(
        toolCalls([toolCall('file_write', { path: 'a.txt', content: 'alpha' }), toolCall('file_write', { path: 'b.txt', content: 'beta' })]),
        toolCalls([toolCall('file_read', { path: 'a.txt' }), toolCall('ls', {})]),
        text('Wrote a.txt and b.txt.'),
      ),
    args: [{ agent: defineAgent({ name: 'writer', instructions: 'Write files.', tools: ['file_write', 'file_read', 'ls'] }), input: 'write two files' }],
  },
];

async function main(): Promise<void> {
  const temporal = await startTemporalDevServer();
  const model = await ScriptedModelServer.start();
  const nativeConnection = await NativeConnection.connect({ address: temporal.address });
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const { worker } = await createWorker({
    connection: nativeConnection,
    taskQueue: 'record',
    model: { baseURL: model.baseURL, apiKey: 'test', defaultModel: 'scripted' },
    workspaceRoot: fs.mkdtempSync(path.join(os.tmpdir(), 'agio-record-')),
  });
  try {
    await worker.runUntil(async () => {
      for (const scenario of scenarios) {
        scenario.script(model);
        const handle = await client.workflow.start('agentRun', { taskQueue: 'record', workflowId: scenario.workflowId, args: scenario.args });
        await handle.result();
        const history = await handle.fetchHistory();
        fs.writeFileSync(path.join(__dirname, 'histories', scenario.file), JSON.stringify(JSON.parse(historyToJSON(history)), null, 1) + '\n');
        console.log(`recorded ${scenario.file} (${history.events?.length} events)`);
      }
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await model.close();
    await temporal.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
