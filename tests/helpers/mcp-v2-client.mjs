// The MCP SDK v2 client (@modelcontextprotocol/client) with @modelcontextprotocol/ext-tasks against the bridge's /mcp,
// in a process of its own (ext-tasks ships as ES modules only; the tests run as CommonJS). One scenario per run, each
// step printed as a JSON line on stdout:
//   node mcp-v2-client.mjs <url> <token> plain <tool> <input>    negotiates (server/discover, then the 2025 handshake),
//                                                                lists the tools, calls one without a task
//   node mcp-v2-client.mjs <url> <token> follow <tool> <input>   calls it as a task and settles it
//   node mcp-v2-client.mjs <url> <token> cancel <tool> <input>   calls it as a task and cancels it
import process from 'node:process';
import { URL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';

const [url, token, scenario, tool, input] = process.argv.slice(2);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const client = new Client({ name: 'agio-v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(
  new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
);
print({ step: 'connected', era: client.getProtocolEra() });

if (scenario === 'plain') {
  const { tools } = await client.listTools();
  print({ step: 'tools', tools });
  print({ step: 'result', result: await client.callTool({ name: tool, arguments: { input } }) });
} else {
  const session = createTaskSessionFromClient(client, { endpointId: 'agio-test' });
  const execution = await session.callTool(tool, { input }, { task: { preference: 'require' } });
  print({ step: 'execution', kind: execution.kind, taskId: execution.handle?.taskId });
  if (scenario === 'cancel') await execution.cancel();
  const { outcome } = await execution.settle({
    onEvent: (event) => event.type === 'task' && print({ step: 'task', status: event.task.status }),
  });
  print({
    step: 'outcome',
    outcome: { status: outcome.status, result: outcome.result, error: outcome.error?.message },
  });
  await session.close();
}
await client.close();
