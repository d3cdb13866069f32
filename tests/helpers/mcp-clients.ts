// MCP clients of the bridge's /mcp endpoint for integration tests: the MCP SDK 1.x client over Streamable HTTP with a
// bearer token, closed after the test file; the progress notifications a call received; and the SDK v2 client with
// ext-tasks, run in a process of its own (mcp-v2-client.mjs).
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
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

/** One printed step of tests/helpers/mcp-v2-client.mjs. */
// The script's lines are arbitrary JSON; tests index into them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type V2Step = { step: string } & Record<string, any>;

/** A run of the v2 client script (the MCP SDK v2 client with ext-tasks, in its own process). */
export interface V2ClientRun {
  /** Resolves with the first step named `step` (rejects when the script exits first). */
  step(step: string): Promise<V2Step>;
  /** Resolves with the exit code and stderr once the script has ended. */
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Starts the v2 client script on a scenario (plain, follow, cancel) of one tool call. */
export function runV2Client(
  bridgeUrl: string,
  token: string,
  scenario: string,
  tool: string,
  input: string,
): V2ClientRun {
  const script = path.join(__dirname, 'mcp-v2-client.mjs');
  const child = spawn(process.execPath, [script, `${bridgeUrl}/mcp`, token, scenario, tool, input], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const steps: V2Step[] = [];
  const events = new EventEmitter();
  let stderr = '';
  let closed = false;
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  createInterface({ input: child.stdout }).on('line', (line) => {
    steps.push(JSON.parse(line) as V2Step);
    events.emit('step');
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      closed = true;
      events.emit('step');
      resolve({ code, stderr });
    }),
  );
  return {
    exited,
    step: (name) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = steps.find((s) => s.step === name);
          if (found) return resolve(found);
          if (closed) return reject(new Error(`the v2 client ended without "${name}": ${stderr}`));
          events.once('step', check);
        };
        check();
      }),
  };
}
