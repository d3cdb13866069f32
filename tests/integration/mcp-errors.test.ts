// What a run learns when an MCP server fails: a short error naming the server, never the worker's command lines,
// paths or the server's stderr (which can hold secrets); those go to the worker's log. A per-run server that starts
// fine for the worker's listing but dies at once in a run's workspace, printing a secret to stderr, shows it.
import path from 'node:path';
import { defineAgent } from '../../common';
import type { McpServerConfigInput } from '../../activities/tools/mcp/config';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { runToEnd, sentToolResult } from '../helpers/agent-runs';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

const EVERYTHING = path.resolve('node_modules/.bin/mcp-server-everything');
/** server-everything in the listing's scratch directory; anywhere else, a secret on stderr and exit 3. */
const FLAKY = `case "$1" in */agio-mcp-flaky-*) exec ${EVERYTHING} stdio;; esac
echo "SECRET_STDERR api_key=hunter2 while starting in $1" >&2; exit 3`;

describe('a failing MCP server, as the run sees it', () => {
  const bed = useTestBed({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const mcpServers: McpServerConfigInput[] = [
      {
        name: 'flaky',
        transport: 'stdio',
        command: '/bin/sh',
        args: ['-c', FLAKY, 'sh', '{workspace}'],
        lifetime: 'run',
        tools: ['echo'],
      },
    ];
    worker = await startTestWorker({ model: bed.model(), mcpServers });
  });
  afterAll(async () => {
    await worker?.stop();
    await worker?.close();
  });

  it("gets a short error naming the server, without its command line, the workspace's path or its stderr", async () => {
    bed.server.script(toolCalls([toolCall('flaky__echo', { message: 'hi' }, { id: 'call_1' })]), text('gave up'));
    const { output } = await runToEnd(bed.client, worker.taskQueue, {
      agent: defineAgent({ name: 'user', tools: ['mcp:flaky'] }),
      input: 'go',
    });
    const sent = sentToolResult(bed.server.requests[1], 'call_1');
    expect(sent).toBe(
      `Error: tool "flaky__echo" failed: MCP server "flaky" could not start (the worker's log has the details)`,
    );
    const seen = JSON.stringify(output) + sent;
    for (const leak of ['SECRET_STDERR', 'hunter2', '/bin/sh', 'agio-mcp', worker.workspaceRoot])
      expect(seen).not.toContain(leak);
  });
});
