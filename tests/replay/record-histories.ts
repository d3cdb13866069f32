// Records the histories the replay tests use: `npm run record-histories` runs each scenario whose file does not
// exist yet on a fresh dev server with the scripted model and writes its history as JSON (`-- --all` records every
// one again). Histories recorded by older code are the point of replay tests: re-record only for deliberate changes.
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection } from '@temporalio/worker';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asTool, defineAgent, loopAgent, parallelAgent, sequentialAgent, workflowTypeFor, type AnyAgentSpec } from '../../common';
import { createWorker } from '../../worker/create-worker';
import { startTemporalDevServer } from '../../worker/dev-server/temporal-server';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../worker/dev-server/scripted-model-server';

/** One recorded scenario: a workflow run and the model turns it needs. */
interface Scenario {
  file: string;
  workflowId: string;
  script: (model: ScriptedModelServer) => void;
  args: [{ agent: AnyAgentSpec; input: string; context?: unknown }];
}

/** An LLM sub-agent whose requests the scripted model recognises by its instructions. */
const member = (name: string) => defineAgent({ name, instructions: `You are ${name}.`, tools: ['ls'] });

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
  {
    // Quick tools as local activities, and the root's event log with its tail written after the terminal event.
    file: 'agent-run-event-log.json',
    workflowId: 'replay-agent-run-event-log',
    script: (model) => model.script(toolCalls([toolCall('ls', {}), toolCall('file_write', { path: 'c.txt', content: 'gamma' })]), toolCalls([toolCall('file_read', { path: 'c.txt' })]), text('c.txt says gamma.')),
    args: [{ agent: defineAgent({ name: 'reader', instructions: 'Read files.', tools: ['ls', 'file_write', 'file_read'] }), input: 'write and read c.txt' }],
  },
  {
    // The same run on the lean step path: tools resolved locally, a turn's steps riding on the next model call.
    file: 'agent-run-lean-steps.json',
    workflowId: 'replay-agent-run-lean-steps',
    script: (model) => model.script(toolCalls([toolCall('ls', {}), toolCall('file_write', { path: 'c.txt', content: 'gamma' })]), toolCalls([toolCall('file_read', { path: 'c.txt' })]), text('c.txt says gamma.')),
    args: [{ agent: defineAgent({ name: 'reader', instructions: 'Read files.', tools: ['ls', 'file_write', 'file_read'] }), input: 'write and read c.txt' }],
  },
  {
    // An agent used as a tool (a child workflow), and a conversation passed to callModel by reference.
    file: 'agent-run-agent-tool.json',
    workflowId: 'replay-agent-run-agent-tool',
    script: (model) => {
      model.scriptFor('You are the lead.', toolCalls([toolCall('helper', { task: 'look around' }, { id: 'call_helper' })]), text('The helper looked around.'));
      model.scriptFor('You are helper.', toolCalls([toolCall('ls', {})]), text('Nothing much here.'));
    },
    args: [{ agent: defineAgent({ name: 'lead', instructions: 'You are the lead.', tools: [asTool(member('helper'), { description: 'Looks around.' })] }), input: 'what is there?', context: { limits: { inlineModelInputBytes: 0 } } }],
  },
  {
    // An agent used as a tool on the lean step path: the child's patch markers come first in its history too.
    file: 'agent-run-agent-tool-lean-steps.json',
    workflowId: 'replay-agent-run-agent-tool-lean-steps',
    script: (model) => {
      model.scriptFor('You are the lead.', toolCalls([toolCall('helper', { task: 'look around' }, { id: 'call_helper' })]), text('The helper looked around.'));
      model.scriptFor('You are helper.', toolCalls([toolCall('ls', {})]), text('Nothing much here.'));
    },
    args: [{ agent: defineAgent({ name: 'lead', instructions: 'You are the lead.', tools: [asTool(member('helper'), { description: 'Looks around.' })] }), input: 'what is there?' }],
  },
  {
    // A conversation compacted near its (lowered) threshold: older file contents stored and replaced by references.
    file: 'agent-run-compaction.json',
    workflowId: 'replay-agent-run-compaction',
    script: (model) =>
      model.script(
        ...[0, 1, 2].map((i) => toolCalls([toolCall('file_write', { path: `f${i}.txt`, content: String(i).repeat(3000) }, { id: `call_write_${i}` })])),
        text('Wrote three files.'),
      ),
    args: [{ agent: defineAgent({ name: 'writer', instructions: 'Write files.', tools: ['file_write', 'get_tool_result'] }), input: 'write three files', context: { limits: { compactModelInputBytes: 5000 } } }],
  },
  {
    // A model call retried through an outage (the retry window, MODEL_UNAVAILABLE from the third attempt).
    file: 'agent-run-outage.json',
    workflowId: 'replay-agent-run-outage',
    script: (model) => {
      const unavailable = { error: { status: 503, body: { error: { message: 'overloaded' } }, headers: { 'retry-after-ms': '100' } } };
      model.script(unavailable, unavailable, unavailable, text('back'));
    },
    args: [{ agent: defineAgent({ name: 'patient', instructions: 'Wait.' }), input: 'hello' }],
  },
  {
    // Agent tools with deadlines kept by the parent: one child finishes in time, the other is cancelled at its timeout.
    file: 'agent-run-agent-tool-deadline.json',
    workflowId: 'replay-agent-run-agent-tool-deadline',
    script: (model) => {
      model.scriptFor('You are the lead.', toolCalls([toolCall('quick', { task: 'q' }, { id: 'call_quick' }), toolCall('slow', { task: 's' }, { id: 'call_slow' })]), text('One answered.'));
      model.scriptFor('You are quick.', text('done'));
      model.scriptFor('You are slow.', text('too late', { hangMs: 4000 }));
    },
    args: [
      {
        agent: defineAgent({
          name: 'lead',
          instructions: 'You are the lead.',
          tools: [asTool(member('quick'), { description: 'Quick.', timeoutMs: 60_000 }), asTool(member('slow'), { description: 'Slow.', timeoutMs: 1500 })],
        }),
        input: 'ask both',
      },
    ],
  },
  {
    file: 'loop-agent.json',
    workflowId: 'replay-loop-agent',
    script: (model) => {
      model.scriptFor('You are drafter.', text('draft 1'), text('draft 2'));
      model.scriptFor('You are critic.', toolCalls([toolCall('ls', {})]), text('better'), text('good'));
    },
    args: [{ agent: loopAgent({ name: 'refine', maxIterations: 2, subAgents: [member('drafter'), member('critic')] }), input: 'write a line' }],
  },
  {
    // A loop that continues as new as the root: its event log written before it continues and when it ends.
    file: 'loop-agent-event-log.json',
    workflowId: 'replay-loop-agent-event-log',
    script: (model) => {
      model.scriptFor('You are drafter.', text('draft 1'), text('draft 2'));
      model.scriptFor('You are critic.', text('better'), text('good'));
    },
    args: [{ agent: loopAgent({ name: 'refine', maxIterations: 2, continueAsNewEvery: 1, subAgents: [member('drafter'), member('critic')] }), input: 'write a line' }],
  },
  {
    file: 'sequential-agent.json',
    workflowId: 'replay-sequential-agent',
    script: (model) => {
      model.scriptFor('You are researcher.', toolCalls([toolCall('ls', {})]), text('facts'));
      model.scriptFor('You are writer.', text('an article'));
    },
    args: [{ agent: sequentialAgent({ name: 'pipeline', subAgents: [member('researcher'), member('writer')] }), input: 'otters' }],
  },
  {
    file: 'parallel-agent.json',
    workflowId: 'replay-parallel-agent',
    script: (model) => {
      model.scriptFor('You are north.', toolCalls([toolCall('ls', {})]), text('clear'));
      model.scriptFor('You are south.', text('rain'));
    },
    args: [{ agent: parallelAgent({ name: 'forecast', subAgents: [member('north'), member('south')] }), input: 'weather?' }],
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
        const file = path.join(__dirname, 'histories', scenario.file);
        if (fs.existsSync(file) && !process.argv.includes('--all')) continue;
        scenario.script(model);
        const type = workflowTypeFor(scenario.args[0].agent.kind);
        const handle = await client.workflow.start(type, { taskQueue: 'record', workflowId: scenario.workflowId, args: scenario.args });
        await handle.result();
        const history = await handle.fetchHistory();
        fs.writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 1) + '\n');
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
