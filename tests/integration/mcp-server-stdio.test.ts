// `agio mcp` as an MCP client starts it (a process speaking MCP on stdio, relaying to the bridge's /mcp with
// AGIO_URL and AGIO_TOKEN): the SDK 1.x stdio client lists the agents, gets a plain call's result with progress,
// follows a task to its result, and sees a wrong token refused with the bridge's reason.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { progressLog } from '../helpers/mcp-clients';
import { useTestBed } from '../helpers/test-bed';

const asker = askingAgent('stdio-asker');
const root = path.resolve(__dirname, '../..');

describe('agio mcp (stdio)', () => {
  const bed = useTestBed({ tools: testTools, agents: [asker], bridge: true });
  const open: Client[] = [];
  afterAll(() => Promise.all(open.map((c) => c.close())));

  /** Starts `agio mcp` the way an MCP client's config does, and connects to it. */
  async function agioMcp(token: string): Promise<Client> {
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    open.push(client);
    await client.connect(
      new StdioClientTransport({
        command: path.join(root, 'node_modules/.bin/tsx'),
        args: ['cli/main.ts', 'mcp'],
        cwd: root,
        env: { PATH: process.env.PATH ?? '', AGIO_URL: bed.bridge.url, AGIO_TOKEN: token },
        stderr: 'pipe',
      }),
    );
    return client;
  }

  it('lists the agents, answers a plain call with progress and follows a task to its result', async () => {
    const client = await agioMcp(bed.bridge.token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['stdio-asker']);

    bed.server.scriptFor(keyOf(asker), text('nothing to record'));
    const progress = progressLog();
    const plain = await client.callTool({ name: asker.name, arguments: { input: 'hello' } }, undefined, {
      onprogress: progress.onprogress,
    });
    expect(plain.content).toEqual([{ type: 'text', text: 'nothing to record' }]);
    expect(progress.messages()).toContain('answered');

    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'via stdio' }, { id: 'call_stdio' })]),
      text('recorded via stdio'),
    );
    const { task } = await client.request(
      { method: 'tools/call', params: { name: asker.name, arguments: { input: 'record it' }, task: {} } },
      CreateTaskResultSchema,
    );
    await waitForAsk(bed.client, task.taskId, 'call_stdio');
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
    await bed.bridge.agio.getHandle(task.taskId).approve('call_stdio');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'recorded via stdio' }]);
  });

  it("answers with the bridge's refusal when the token is wrong", async () => {
    await expect(agioMcp('wrong-token')).rejects.toThrow(/the Agio bridge: .*unknown bearer token/);
  });
});
