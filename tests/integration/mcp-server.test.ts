// Agio as an MCP server on the bridge (POST /mcp), driven by the MCP SDK's own 1.x client over Streamable HTTP:
// agents listed as tools, a call followed as a task (task id = run id) through an approval to its result with
// progress from the run's stream, a task cancelled (the run is cancelled), a client without Tasks answered when the run
// ends, bad arguments as a tool error, and tokens and tenants as on every route.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineAgent } from '../../common';
import { RunCancelledError } from '../../client/errors';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { startBridge } from '../helpers/bridge';
import { McpClients, progressLog } from '../helpers/mcp-clients';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const asker = askingAgent('mcp-asker', { description: 'Records things, after a person approves' });
const writer = defineAgent({
  name: 'mcp-writer',
  instructions: 'You are mcp-writer.',
  outputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
});

const strict = defineAgent({
  name: 'mcp-strict',
  instructions: 'You are mcp-strict.',
  outputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  maxOutputRepairs: 0,
});

describe('MCP server (1.x client, Streamable HTTP)', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [asker, writer, strict],
    bridge: { tokens: 'test-token:default,other-token:tenant-b,reader-token:default:reader:read' },
  });
  const clients = new McpClients();
  afterAll(() => clients.closeAll());
  const connect = (token = 'test-token') => clients.connect(bed.bridge.url, token);

  /** Starts a task of the asker, which waits for an approval of `record` (call id `callId`). */
  async function askingTask(callId: string, token?: string) {
    const client = await connect(token);
    const { task } = await client.request(
      { method: 'tools/call', params: { name: asker.name, arguments: { input: 'record it' }, task: {} } },
      CreateTaskResultSchema,
    );
    await waitForAsk(bed.client, task.taskId, callId);
    return { client, taskId: task.taskId };
  }

  it('lists each agent as a tool with its input schema, its output schema and optional task support', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['mcp-asker', 'mcp-strict', 'mcp-writer']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName['mcp-asker']).toMatchObject({
      description: 'Records things, after a person approves',
      inputSchema: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
      execution: { taskSupport: 'optional' },
    });
    expect(byName['mcp-asker'].outputSchema).toBeUndefined();
    expect(byName['mcp-writer'].outputSchema).toMatchObject({ type: 'object', required: ['title'] });
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
  });

  it('answers a task call with the run id, says it waits for approval, and gives the result with progress', async () => {
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'from mcp' }, { id: 'call_mcp' })]),
      text('recorded it'),
    );
    const { client, taskId } = await askingTask('call_mcp');
    expect(taskId).toMatch(/^run-/);
    const waiting = await client.experimental.tasks.getTask(taskId);
    expect(waiting).toMatchObject({ taskId, status: 'working', pollInterval: 1000 });
    expect(waiting.statusMessage).toContain('approve "record" (tool call call_mcp)');

    await bed.bridge.agio.getHandle(taskId).approve('call_mcp');
    const progress = progressLog();
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, {
      onprogress: progress.onprogress,
    });
    expect(result.content).toEqual([{ type: 'text', text: 'recorded it' }]);
    expect(result.isError).toBeFalsy();
    expect(progress.messages()).toEqual(
      expect.arrayContaining([`run ${taskId} started`, 'calling record', '"record" approved', 'record answered']),
    );
    expect(progress.values()).toEqual(progress.values().map((_, i) => i + 1));
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.find((t) => t.taskId === taskId)).toBeDefined();
  });

  it('cancels the run when the task is cancelled', async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_cancel' })]));
    const { client, taskId } = await askingTask('call_cancel');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    await expect(bed.bridge.agio.getHandle(taskId).result()).rejects.toBeInstanceOf(RunCancelledError);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('answers a client that asks for no task when the run ends, with progress and structured output', async () => {
    bed.server.scriptFor('You are mcp-writer.', text('{"title":"Durable"}'));
    const client = await connect();
    const progress = progressLog();
    const result = await client.callTool({ name: writer.name, arguments: { input: 'a title' } }, undefined, {
      onprogress: progress.onprogress,
    });
    expect(result.structuredContent).toEqual({ title: 'Durable' });
    expect(result.content).toEqual([{ type: 'text', text: '{"title":"Durable"}' }]);
    expect(progress.messages()[0]).toMatch(/^run run-.* started$/);
    expect(progress.messages()).toContain('answered');
  });

  it('answers a run that failed with a tool error, and its task as failed', async () => {
    bed.server.scriptFor('You are mcp-strict.', text('not json'));
    const client = await connect();
    const result = await client.callTool({ name: strict.name, arguments: { input: 'a title' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('OutputValidationError') }]);
    const runId = String(result._meta?.['agio/runId']);
    expect(await client.experimental.tasks.getTask(runId)).toMatchObject({ taskId: runId, status: 'failed' });
  });

  it('follows a task through another bridge, as after a restart: the task is the run, kept by Temporal', async () => {
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'elsewhere' }, { id: 'call_elsewhere' })]),
      text('recorded elsewhere'),
    );
    const { taskId } = await askingTask('call_elsewhere');
    const other = await startBridge({ client: bed.client, taskQueue: bed.worker.taskQueue, agents: [asker, writer] });
    try {
      const client = await clients.connect(other.url, other.token);
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'working' });
      await other.agio.getHandle(taskId).approve('call_elsewhere');
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.content).toEqual([{ type: 'text', text: 'recorded elsewhere' }]);
    } finally {
      await other.close();
    }
  });

  it('leaves the run going when a client waiting on a plain call gives up', async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'later' }, { id: 'call_later' })]));
    const client = await connect();
    const progress = progressLog();
    const stop = new AbortController();
    const call = client.callTool({ name: asker.name, arguments: { input: 'record it' } }, undefined, {
      onprogress: progress.onprogress,
      signal: stop.signal,
    });
    await waitFor('the approval in progress', async () => progress.messages().some((m) => m.includes('approve')));
    stop.abort();
    await expect(call).rejects.toThrow();
    const runId = /^run (\S+) started$/.exec(progress.messages()[0])?.[1] ?? '';
    const run = bed.bridge.agio.getHandle(runId);
    expect((await run.state()).pendingApprovals.map((a) => a.toolCallId)).toEqual(['call_later']);
    await run.cancel();
  });

  it('answers bad arguments with a tool error naming them, and an unknown agent with an error', async () => {
    const client = await connect();
    const empty = await client.callTool({ name: writer.name, arguments: { input: '' } });
    expect(empty.isError).toBe(true);
    expect(empty.content).toEqual([
      { type: 'text', text: expect.stringContaining('invalid arguments for agent "mcp-writer": input: the prompt') },
    ]);
    const extra = await client.callTool({ name: writer.name, arguments: { input: 'x', model: 'gpt' } });
    expect(extra.isError).toBe(true);
    await expect(
      client.request(
        { method: 'tools/call', params: { name: writer.name, arguments: { input: 42 }, task: {} } },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/invalid arguments for agent "mcp-writer"/);
    await expect(client.callTool({ name: 'nobody', arguments: { input: 'x' } })).rejects.toThrow(/no agent "nobody"/);
  });

  it("answers another tenant's task as not found, and refuses calls a token's scopes do not allow", async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'mine' }, { id: 'call_mine' })]));
    const { client, taskId } = await askingTask('call_mine');
    const other = await connect('other-token');
    await expect(other.experimental.tasks.getTask(taskId)).rejects.toThrow(/Task not found/);
    await expect(other.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/Task not found/);
    await expect(other.experimental.tasks.getTaskResult(taskId)).rejects.toThrow(/Task not found/);
    expect((await other.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(taskId);

    const reader = await connect('reader-token');
    expect((await reader.listTools()).tools).toHaveLength(3);
    await expect(reader.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/lacks the "control" scope/);
    await expect(reader.callTool({ name: asker.name, arguments: { input: 'x' } })).rejects.toThrow(
      /lacks the "start" scope/,
    );
    await client.experimental.tasks.cancelTask(taskId);
  });

  it('refuses a client without a token or with an unknown one', async () => {
    await expect(clients.connect(bed.bridge.url)).rejects.toThrow(/"unauthorized".*send Authorization: Bearer/);
    await expect(clients.connect(bed.bridge.url, 'wrong-token')).rejects.toThrow(/unknown bearer token/);
    const res = await fetch(`${bed.bridge.url}/mcp`, { headers: { authorization: 'Bearer test-token' } });
    expect(res.status).toBe(405);
  });

  it("answers a body that is not JSON, or not a JSON-RPC message, as the SDK's own transport does", async () => {
    const headers = {
      authorization: 'Bearer test-token',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    for (const body of ['{"jsonrpc":', '42']) {
      const sdk = await new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined }).handleRequest(
        new Request('http://sdk.invalid/mcp', { method: 'POST', headers, body }),
      );
      const res = await fetch(`${bed.bridge.url}/mcp`, { method: 'POST', headers, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(await sdk.json());
    }
    const res = await fetch(`${bed.bridge.url}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.any(String) },
      id: null,
    });
  });
});
