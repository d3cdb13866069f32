// MCP clients of the bridge's /mcp endpoint for integration tests: the MCP SDK 1.x client over Streamable HTTP with a
// bearer token, closed after the test file; and the progress notifications a call received.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';

/** Opens MCP clients of one bridge and closes them all at once. */
export class McpClients {
  private readonly open: Client[] = [];

  /** Connects (initialize handshake) to `<bridgeUrl>/mcp` with `token` (none: no Authorization header). */
  async connect(bridgeUrl: string, token?: string, name = 'agio-test'): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${bridgeUrl}/mcp`), {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    });
    await client.connect(transport);
    this.open.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((c) => c.close().catch(() => undefined)));
  }
}

/** Collects the progress notifications of one request (pass `onprogress` to it). */
export function progressLog(): { onprogress: (p: Progress) => void; messages: () => string[]; values: () => number[] } {
  const got: Progress[] = [];
  return {
    onprogress: (p) => got.push(p),
    messages: () => got.map((p) => p.message ?? ''),
    values: () => got.map((p) => p.progress),
  };
}
