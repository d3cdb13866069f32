// MCP servers as tool sources on a real dev server, with the reference servers from the registry: server-everything
// over stdio and over streamable HTTP, server-filesystem started per run in the run's workspace. MCP tools go the
// way built-in tools go: the model's call, permission rules and approvals, argument checks, timeouts, results.
import { NativeConnection } from '@temporalio/worker';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { defineAgent, runWorkspace } from '../../common';
import type { McpServerConfigInput } from '../../activities/tools/mcp/config';
import { createWorker } from '../../worker/create-worker';
import { freePort, tcpReachable, waitUntil } from '../../devkit/free-port';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { decideToolCallUpdate } from '../../common/messages';
import { heldAnswer, offeredTools, runToEnd, sentToolResult, startRun } from '../helpers/agent-runs';
import { authTrail, waitForAsk } from '../helpers/approvals';
import { readStream } from '../helpers/nested-runs';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';

const execFileAsync = promisify(execFile);
const BIN = path.resolve('node_modules/.bin');
const EVERYTHING = path.join(BIN, 'mcp-server-everything');
const FILESYSTEM = path.join(BIN, 'mcp-server-filesystem');
const EVERYTHING_TOOLS = ['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation'];

/** MCP server processes this test process started: pid → command line. */
async function mcpProcesses(): Promise<Map<number, string>> {
  const { stdout } = await execFileAsync('ps', ['-A', '-o', 'pid=,ppid=,args=']);
  const found = new Map<number, string>();
  for (const line of stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (m && Number(m[2]) === process.pid && /mcp-server-/.test(m[3]) && !m[3].includes('streamableHttp'))
      found.set(Number(m[1]), m[3]);
  }
  return found;
}

describe('MCP servers as tool sources', () => {
  const bed = useTestBed({ worker: false });
  let httpServer: ChildProcess | undefined;
  let worker: TestWorker;

  beforeAll(async () => {
    const port = await freePort();
    httpServer = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    await waitUntil(() => tcpReachable(port), 'server-everything over streamable HTTP', 20_000);
    const mcpServers: McpServerConfigInput[] = [
      { name: 'everything', transport: 'stdio', command: EVERYTHING, args: ['stdio'], tools: EVERYTHING_TOOLS },
      {
        name: 'web',
        transport: 'http',
        url: `http://127.0.0.1:${port}/mcp`,
        tools: ['echo', 'trigger-long-running-operation'],
        timeoutMs: 2000,
        maxAttempts: 1,
      },
      {
        name: 'fs',
        transport: 'stdio',
        command: FILESYSTEM,
        args: ['{workspace}'],
        lifetime: 'run',
        idleTimeoutMs: 5000,
      },
    ];
    worker = await startTestWorker({ model: bed.model(), mcpServers });
  });
  afterAll(async () => {
    await worker?.stop();
    await worker?.close();
    if (httpServer && httpServer.exitCode === null)
      await new Promise((resolve) => httpServer!.once('exit', resolve).kill());
  });

  const run = (agent: ReturnType<typeof defineAgent>, workflowId?: string) =>
    runToEnd(bed.client, worker.taskQueue, { agent, input: 'go' }, workflowId);

  it("lets the model call a stdio server's tool, offered under the server's own JSON Schema, and see its result", async () => {
    bed.server.script(
      toolCalls([toolCall('everything__echo', { message: 'hello over stdio' }, { id: 'call_echo' })]),
      text('echoed'),
    );

    const { output } = await run(defineAgent({ name: 'echoer', tools: ['everything__echo'] }));

    expect(output.response).toBe('echoed');
    expect(sentToolResult(bed.server.requests[1], 'call_echo')).toBe('Echo: hello over stdio');
    const offered = (
      bed.server.requests[0].body.tools as {
        function: { name: string; parameters: { properties: object; required: string[] } };
      }[]
    )[0].function;
    expect(offered).toMatchObject({
      name: 'everything__echo',
      parameters: { properties: { message: { type: 'string' } }, required: ['message'] },
    });
    expect(output.steps.find((s) => s.toolCallId === 'call_echo')).toMatchObject({ role: 'tool', isError: false });
  });

  it('offers every allowlisted tool of a server for mcp:<server>, summarises an image, and answers a call of a tool it lacks as an unknown tool', async () => {
    bed.server.script(
      toolCalls([
        toolCall('everything__get-tiny-image', {}, { id: 'call_image' }),
        toolCall('nowhere__tool', {}, { id: 'call_nowhere' }),
      ]),
      text('seen'),
    );

    await run(defineAgent({ name: 'grouped', tools: ['mcp:everything'] }));

    expect(offeredTools(bed.server.requests[0])).toEqual(EVERYTHING_TOOLS.map((t) => `everything__${t}`));
    expect(sentToolResult(bed.server.requests[1], 'call_image')).toMatch(
      /^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]\n/,
    );
    expect(sentToolResult(bed.server.requests[1], 'call_nowhere')).toBe(
      `Error: unknown tool "nowhere__tool"; available tools: ${EVERYTHING_TOOLS.map((t) => `everything__${t}`).join(', ')}`,
    );
  });

  it('asks before an MCP tool matched by a glob rule runs, and runs it once approved', async () => {
    bed.server.script(toolCalls([toolCall('everything__get-sum', { a: 2, b: 3 }, { id: 'call_sum' })]), text('five'));
    const agent = defineAgent({
      name: 'careful',
      tools: ['mcp:everything'],
      permissions: [{ tool: 'everything__*', action: 'ask' }],
    });

    const handle = await startRun(bed.client, worker.taskQueue, { agent, input: 'add' });
    const asked = await waitForAsk(bed.client, handle.workflowId, 'call_sum');
    expect(asked.data).toMatchObject({
      tool: 'everything__get-sum',
      args: { a: 2, b: 3 },
      reason: '"everything__get-sum" requires approval',
    });
    expect(bed.server.requests).toHaveLength(1);
    await handle.executeUpdate(decideToolCallUpdate, { args: [{ toolCallId: 'call_sum', decision: 'approve' }] });
    await handle.result();

    expect(sentToolResult(bed.server.requests[1], 'call_sum')).toBe('The sum of 2 and 3 is 5.');
    expect(authTrail(await readStream(bed.client, handle.workflowId))).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_sum'],
      ['TOOL_AUTH_GRANTED', 'call_sum'],
    ]);
  });

  it("answers arguments that do not match the server's schema with a tool error result the model sees", async () => {
    bed.server.script(
      toolCalls([toolCall('everything__get-sum', { a: 'two' }, { id: 'call_bad' })]),
      text('I will fix that'),
    );

    const { output } = await run(defineAgent({ name: 'sloppy', tools: ['everything__get-sum'] }));

    expect(output.response).toBe('I will fix that');
    const sent = sentToolResult(bed.server.requests[1], 'call_bad');
    expect(sent).toMatch(/^Error: invalid arguments for "everything__get-sum":\n/);
    expect(sent).toContain('✖ required property is missing\n  → at b');
    expect(sent).toContain('✖ must be number\n  → at a');
    expect(output.steps.find((s) => s.toolCallId === 'call_bad')).toMatchObject({ isError: true });
  });

  it("gives a run its own filesystem server, confined to the run's workspace, and closes it once idle", async () => {
    const workflowId = uniqueId('fs');
    const workspace = path.join(worker.workspaceRoot, runWorkspace(workflowId));
    const outside = path.join(
      await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agio-outside-'))),
      'secret.txt',
    );
    await fs.writeFile(outside, 'untouched');
    const hold = heldAnswer(text('written'));
    bed.server.script(
      toolCalls([
        toolCall('fs__write_file', { path: 'notes.txt', content: 'from the model' }, { id: 'call_write' }),
        toolCall('fs__list_allowed_directories', {}, { id: 'call_dirs' }),
        toolCall('fs__write_file', { path: outside, content: 'overwritten' }, { id: 'call_escape' }),
      ]),
      hold.answer,
    );

    const handle = await startRun(
      bed.client,
      worker.taskQueue,
      { agent: defineAgent({ name: 'writer', tools: ['mcp:fs'] }), input: 'write' },
      workflowId,
    );
    await waitUntil(async () => expect(bed.server.requests).toHaveLength(2), 'the turn after the tool calls', 30_000);
    // Three calls in parallel, one process: started in the run's workspace, with it as the only allowed directory.
    const real = await fs.realpath(workspace);
    expect([...(await mcpProcesses()).values()].filter((args) => args.includes(real))).toEqual([
      expect.stringContaining(`mcp-server-filesystem ${real}`),
    ]);
    hold.release();
    await handle.result();

    expect(await fs.readFile(path.join(workspace, 'notes.txt'), 'utf8')).toBe('from the model');
    expect(sentToolResult(bed.server.requests[1], 'call_dirs')).toContain(real);
    expect(sentToolResult(bed.server.requests[1], 'call_escape')).toMatch(
      /^Error: Access denied - path outside allowed directories/,
    );
    expect(await fs.readFile(outside, 'utf8')).toBe('untouched');
    await waitUntil(
      async () => expect([...(await mcpProcesses()).values()].filter((args) => args.includes(real))).toEqual([]),
      'the idle server to close',
      20_000,
    );
  });

  it('calls a tool over streamable HTTP and stops a call at its timeout', async () => {
    bed.server.script(
      toolCalls([
        toolCall('web__echo', { message: 'hello over http' }, { id: 'call_web' }),
        toolCall('web__trigger-long-running-operation', { duration: 30, steps: 30 }, { id: 'call_slow' }),
      ]),
      text('done'),
    );

    const { output } = await run(defineAgent({ name: 'remote', tools: ['mcp:web'] }));

    expect(sentToolResult(bed.server.requests[1], 'call_web')).toBe('Echo: hello over http');
    expect(sentToolResult(bed.server.requests[1], 'call_slow')).toMatch(
      /^Error: tool "web__trigger-long-running-operation" did not finish: timed out/,
    );
    const slow = output.steps.find((s) => s.toolCallId === 'call_slow');
    expect(slow?.metrics?.durationMs).toBeLessThan(10_000);
  });

  it("heartbeats on the server's progress and stops a call as soon as the activity's signal aborts", async () => {
    const abort = new AbortController();
    const heartbeat = jest.fn(() => abort.abort(new Error('activity cancelled')));
    const ctx = {
      workspace: worker.workspaceRoot,
      signal: abort.signal,
      heartbeat,
      idempotencyKey: 'k',
      runId: 'cancel-run',
      toolCallId: 'c',
    };
    const startedAt = Date.now();

    const outcome = await worker.tools
      .find('everything__trigger-long-running-operation')!
      .execute({ duration: 20, steps: 40 }, ctx)
      .catch((e: Error) => e);

    expect(outcome).toBeInstanceOf(Error);
    expect(heartbeat).toHaveBeenCalled();
    expect(Date.now() - startedAt).toBeLessThan(5000);
    // The server goes on serving: the cancelled request did not take the connection with it.
    expect(
      await worker.tools
        .find('everything__echo')!
        .execute({ message: 'still here' }, { ...ctx, signal: new AbortController().signal }),
    ).toEqual({ content: 'Echo: still here' });
  });

  it('fails createWorker naming every server that cannot start, and ends the servers it had started', async () => {
    const before = await mcpProcesses();
    const connection = await NativeConnection.connect({ address: testEnv('temporalAddress') });
    const closedPort = await freePort();
    try {
      const failure = await createWorker({
        connection,
        taskQueue: uniqueId('mcp-broken'),
        model: bed.model(),
        workflowBundle: { codePath: testEnv('workflowBundle') },
        mcpServers: [
          { name: 'fine', transport: 'stdio', command: EVERYTHING, args: ['stdio'] },
          { name: 'missing', transport: 'stdio', command: '/nonexistent/mcp-server' },
          {
            name: 'dies',
            transport: 'stdio',
            command: process.execPath,
            args: ['-e', 'console.error("no API token given"); process.exit(3)'],
          },
          { name: 'gone', transport: 'http', url: `http://127.0.0.1:${closedPort}/mcp` },
        ],
      }).then(
        () => undefined,
        (err: Error) => err.message,
      );

      expect(failure).toMatch(/^MCP server "missing" \(stdio: \/nonexistent\/mcp-server\) could not start: .*ENOENT/m);
      expect(failure).toMatch(
        /^MCP server "dies" \(stdio: .+\) could not start: .*Connection closed; its stderr ended with:\nno API token given$/m,
      );
      expect(failure).toMatch(
        new RegExp(
          `^MCP server "gone" \\(http: http://127.0.0.1:${closedPort}/mcp\\) could not start: .*ECONNREFUSED`,
          'm',
        ),
      );
      expect(failure).not.toMatch(/"fine"/);
      expect(await mcpProcesses()).toEqual(before);
    } finally {
      await connection.close();
    }
  });

  it('ends every MCP process on close(), shared and per-run ones alike, and can be called twice', async () => {
    const before = await mcpProcesses();
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agio-mcp-close-')));
    const closing = await startTestWorker({
      model: bed.model(),
      workspaceRoot: root,
      mcpServers: [
        { name: 'everything', transport: 'stdio', command: EVERYTHING, args: ['stdio'], tools: ['echo'] },
        { name: 'fs', transport: 'stdio', command: FILESYSTEM, args: ['{workspace}'], lifetime: 'run' },
      ],
    });
    let stopped = false;
    try {
      // A per-run connection, opened as runTool opens one (the tool's own execute, outside Temporal).
      const ctx = {
        workspace: root,
        signal: new AbortController().signal,
        heartbeat: () => undefined,
        idempotencyKey: 'k',
        runId: 'close-run',
        toolCallId: 'c',
      };
      expect(await closing.tools.find('fs__list_allowed_directories')!.execute({}, ctx)).toMatchObject({
        content: expect.stringContaining(root),
      });
      expect([...(await mcpProcesses()).keys()].filter((pid) => !before.has(pid))).toHaveLength(2);

      await closing.stop();
      stopped = true;
      await closing.close();
      await closing.close();

      expect(await mcpProcesses()).toEqual(before);
      const late = await closing.tools
        .find('everything__echo')!
        .execute({ message: 'late' }, ctx)
        .catch((e: Error) => e.message);
      expect(late).toMatch(/shutting down its MCP connections/);
    } finally {
      if (!stopped) await closing.stop();
      await closing.close();
    }
  });
});
