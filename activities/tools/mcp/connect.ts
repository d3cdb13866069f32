// Opens one MCP client connection with the SDK: a stdio child process (with `{workspace}` filled in for a run's own
// server) or a streamable HTTP session. A failure names the server and the cause, with the tail of its stderr.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import path from 'node:path';
import { optionalPackage } from '../../../common/optional-package';
import { WORKSPACE_PLACEHOLDER, type McpServerConfig } from './config';

/** How long starting a server (spawn or HTTP connect, then the initialize handshake) may take. */
export const MCP_START_TIMEOUT_MS = 30_000;
const STDERR_TAIL_BYTES = 2048;

/** The MCP SDK (an optional peer dependency), loaded when a worker first connects to an MCP server. */
function sdk(): typeof import('@modelcontextprotocol/sdk/client/index.js') &
  typeof import('@modelcontextprotocol/sdk/client/stdio.js') &
  typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js') {
  const load = <T>(request: string) => optionalPackage<T>(request, 'MCP servers');
  return {
    ...load<typeof import('@modelcontextprotocol/sdk/client/index.js')>('@modelcontextprotocol/sdk/client/index.js'),
    ...load<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>('@modelcontextprotocol/sdk/client/stdio.js'),
    ...load<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>(
      '@modelcontextprotocol/sdk/client/streamableHttp.js',
    ),
  };
}

/** An open connection to one server. */
export interface McpConnection {
  readonly client: Client;
  /** True once the transport has closed (the process exited, the session ended, or close() was called). */
  readonly closed: boolean;
  /** The stdio process id (absent for HTTP). */
  readonly pid?: number;
  /** The last bytes the stdio process wrote to stderr (for error messages). */
  stderrTail(): string;
  close(): Promise<void>;
}

/** `stdio: node server.js` or `http: https://host/mcp` (no query string: it may hold a token). */
export function describeServer(config: McpServerConfig): string {
  if (config.transport === 'stdio') return `stdio: ${[config.command, ...config.args].join(' ')}`;
  const url = new URL(config.url);
  return `http: ${url.origin}${url.pathname}`;
}

/** Replaces `{workspace}` with the run's workspace (no workspace: the text is returned unchanged). */
export function withWorkspace(text: string, workspace: string | undefined): string {
  return workspace === undefined ? text : text.split(WORKSPACE_PLACEHOLDER).join(workspace);
}

/** Connects to a server; `workspace` is the run's absolute workspace for `lifetime: run` servers. */
export async function connectMcp(
  config: McpServerConfig,
  workspace?: string,
  timeoutMs = MCP_START_TIMEOUT_MS,
): Promise<McpConnection> {
  let tail = '';
  let closed = false;
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = sdk();
  const client = new Client({ name: 'agio', version: '1.0.0' });
  // The SDK reports transport errors here as well as by rejecting the pending request; nothing more to do with them.
  client.onerror = () => undefined;
  client.onclose = () => void (closed = true);
  const transport = config.transport === 'stdio' ? stdioTransport(config, workspace) : httpTransport(config);
  if (transport instanceof StdioClientTransport) {
    transport.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)));
  }
  const connection: McpConnection = {
    client,
    get closed() {
      return closed;
    },
    get pid() {
      return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
    },
    stderrTail: () => tail.trim(),
    async close() {
      if (closed) return;
      // An HTTP session is ended on the server too (DELETE); a server that does not support that is fine.
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
      closed = true;
    },
  };
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (err) {
    await connection.close();
    const which = `MCP server "${config.name}" (${describeServer(config)})`;
    throw new Error(`${which} could not start: ${causeOf(err)}${stderrNote(tail)}`);
  }
  return connection;
}

type StdioConfig = Extract<McpServerConfig, { transport: 'stdio' }>;
type HttpConfig = Extract<McpServerConfig, { transport: 'http' }>;

function stdioTransport(config: StdioConfig, workspace: string | undefined): StdioClientTransport {
  // A relative path is the worker's (spawn would resolve it against the child's cwd, which may be a workspace).
  const command = /[\\/]/.test(config.command) ? path.resolve(config.command) : config.command;
  const cwd = config.cwd !== undefined ? path.resolve(withWorkspace(config.cwd, workspace)) : workspace;
  const env =
    config.env && Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, withWorkspace(v, workspace)]));
  return new (sdk().StdioClientTransport)({
    command,
    args: config.args.map((a) => withWorkspace(a, workspace)),
    ...(env ? { env } : {}),
    ...(cwd ? { cwd } : {}),
    stderr: 'pipe',
  });
}

function httpTransport(config: HttpConfig): StreamableHTTPClientTransport {
  const options = config.headers ? { requestInit: { headers: config.headers } } : {};
  return new (sdk().StreamableHTTPClientTransport)(new URL(config.url), options);
}

/** An error's message with its causes (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`). */
export function causeOf(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    const message = e instanceof Error ? e.message : String(e);
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
  }
  return parts.join(': ') || 'unknown error';
}

/** `; its stderr ended with: …` when the process wrote anything there. */
export function stderrNote(tail: string): string {
  const text = tail.trim();
  return text ? `; its stderr ended with:\n${text}` : '';
}
