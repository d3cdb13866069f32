// `agio mcp`: Agio's agents as MCP tools over stdio, for MCP clients that start their servers as processes. It relays
// each message between stdin/stdout and the bridge's POST /mcp (AGIO_URL, with AGIO_TOKEN as every command), so one
// MCP server (the bridge's) answers: the same tenants, scopes, quotas and tasks (task id = run id), near or far.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readTokenFile } from '../bridge/start-tokens';
import { bridgeFromEnv } from './commands';

/** The usage lines of `agio mcp`. */
export const MCP_USAGE = `  mcp                              the agents as MCP tools over stdio (an MCP client's server command):
                                   relays to the bridge's /mcp with AGIO_TOKEN; calls may be followed as
                                   tasks (task id = run id); the HTTP endpoint itself is AGIO_URL/mcp
`;

/** The bearer token as the other commands find it: AGIO_TOKEN, else the one `agio serve` keeps in its data dir. */
function tokenFromEnv(env: NodeJS.ProcessEnv): string {
  const dataDir = env.AGIO_DATA_DIR || '.agio';
  const token = env.AGIO_TOKEN || readTokenFile(dataDir);
  if (token) return token;
  throw new Error(
    `no token: set AGIO_TOKEN (one of the bridge's AGIO_TOKENS), or run this where \`agio serve\` runs (${path.join(dataDir, 'token')})`,
  );
}

/** A JSON-RPC request's id, for answering it with an error the relay met (undefined for notifications, answers). */
function requestId(message: JSONRPCMessage): string | number | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

/** Runs `agio mcp` until stdin ends; returns the exit code. */
export async function mcpCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {} });
  const env = process.env;
  const url = new URL(`${bridgeFromEnv(env).url}/mcp`);
  const token = tokenFromEnv(env);
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const local = new StdioServerTransport();
  const bridge = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const initializeIds = new Set<string | number>();

  local.onmessage = (message) => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) initializeIds.add(message.id);
    bridge.send(message).catch((err: Error) => {
      process.stderr.write(`agio mcp: ${url.origin} refused a message: ${err.message}\n`);
      const id = requestId(message);
      if (id !== undefined)
        void local.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `the Agio bridge: ${err.message}` } });
    });
  };
  bridge.onmessage = (message) => {
    // The handshake's answer names the protocol version every later request must carry as a header.
    if ('result' in message && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') bridge.setProtocolVersion(version);
    }
    void local.send(message);
  };
  bridge.onerror = (err) => process.stderr.write(`agio mcp: ${err.message}\n`);
  local.onerror = (err) => process.stderr.write(`agio mcp: ${err.message}\n`);

  await bridge.start();
  await local.start();
  await new Promise<void>((resolve) => {
    local.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await bridge.close();
  return 0;
}
