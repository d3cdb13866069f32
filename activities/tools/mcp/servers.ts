// The worker's MCP servers: connected and listed at start, their tools turned into worker tools, and their
// connections kept — one per worker for `lifetime: worker`, one per run (closed when idle) for `lifetime: run`.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Context } from '@temporalio/activity';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ToolContext, ToolDefinition, ToolOutput } from '../define-tool';
import { DEFAULT_TOOL_TIMEOUT_MS } from '../registry';
import { DEFAULT_MCP_IDLE_TIMEOUT_MS, McpServerConfig, type McpServerConfigInput } from './config';
import { MCP_START_TIMEOUT_MS, causeOf, connectMcp, describeServer, stderrNote, type McpConnection } from './connect';
import { toolOutputOf } from './results';
import { mcpGroupName, mcpToolDefinition, mcpToolName, selectTools } from './tools';

/** A call's own time limit is the activity's; the SDK's request timeout is only a backstop a little later. */
const SDK_TIMEOUT_MARGIN_MS = 5_000;

/** What the worker gets from its MCP servers. */
export interface McpTools {
  /** Worker tools, `<server>__<tool>`. */
  tools: ToolDefinition[];
  /** `mcp:<server>` → the names of its tools. */
  groups: { name: string; tools: string[] }[];
  /** Closes every connection and ends every stdio process; idempotent. */
  close(): Promise<void>;
}

/** Parses the configs (errors name the entry and the field) and refuses a name declared twice. */
export function parseMcpServers(configs: McpServerConfigInput[]): McpServerConfig[] {
  const parsed = configs.map((c, i) => {
    const result = McpServerConfig.safeParse(c);
    if (result.success) return result.data;
    const name = (c as { name?: unknown })?.name;
    const which = `mcpServers[${i}]${typeof name === 'string' ? ` ("${name}")` : ''}`;
    throw new Error(`${which} is not valid:\n${z.prettifyError(result.error)}`);
  });
  const seen = new Set<string>();
  for (const c of parsed) {
    if (seen.has(c.name)) throw new Error(`MCP server "${c.name}" is declared twice`);
    seen.add(c.name);
  }
  return parsed;
}

/**
 * Connects every server and lists its tools (a run-lifetime server is started once with a scratch directory as its
 * workspace, listed and closed). Any failure closes what was started and throws an error naming the server.
 */
export async function startMcpServers(configs: McpServerConfigInput[]): Promise<McpTools> {
  const pools = parseMcpServers(configs).map((c) => new ServerPool(c));
  const close = async () => void (await Promise.all(pools.map((p) => p.close())));
  const listed = await Promise.allSettled(pools.map((p) => p.listTools()));
  const failed = listed.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failed.length) {
    await close();
    throw new Error(failed.map((e) => e.message).join('\n'));
  }
  try {
    const chosen = pools.map((pool, i) => {
      const tools = selectTools(pool.config, (listed[i] as PromiseFulfilledResult<Tool[]>).value);
      return { pool, config: pool.config, tools };
    });
    return {
      tools: chosen.flatMap(({ pool, config, tools }) =>
        tools.map((t) => mcpToolDefinition(config, t, (name, args, ctx) => pool.call(name, args, ctx))),
      ),
      groups: chosen.map(({ config, tools }) => ({
        name: mcpGroupName(config.name),
        tools: tools.map((t) => mcpToolName(config.name, t.name)),
      })),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A call that failed in the MCP server: its name and a short cause, nothing of the worker's machine. */
export class McpServerError extends Error {
  /** The error's type, as the run shows it. */
  readonly type = 'McpServerFailed';
  constructor(
    readonly server: string,
    cause: string,
  ) {
    super(`MCP server "${server}" ${cause}`);
    this.name = 'McpServerError';
  }
}

/** The activity's logger when there is one (the worker's log), else stderr. */
function workerLog(message: string): void {
  try {
    Context.current().log.warn(message);
  } catch {
    console.warn(message);
  }
}

/** One open (or opening) connection and the calls using it. */
interface Slot {
  connection: Promise<McpConnection>;
  inFlight: number;
  idle?: NodeJS.Timeout;
}

const SHARED = '';

/** The connections of one server: a single shared one, or one per run (keyed by run id). */
export class ServerPool {
  private readonly slots = new Map<string, Slot>();
  private closing: Promise<void> | undefined;

  constructor(readonly config: McpServerConfig) {}

  /** Lists the server's tools (all pages); a worker-lifetime connection stays open for the calls. */
  async listTools(): Promise<Tool[]> {
    if (this.config.lifetime === 'worker') return listAll(this.config, await this.slot(SHARED).connection);
    const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), `agio-mcp-${this.config.name}-`));
    try {
      const connection = await connectMcp(this.config, await fs.promises.realpath(scratch));
      try {
        return await listAll(this.config, connection);
      } finally {
        await connection.close();
      }
    } finally {
      await fs.promises.rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * Calls a tool for a run: with the activity's cancellation signal, heartbeating on the server's progress. A server
   * that cannot start or dies fails the call with a short {@link McpServerError}: its command line, paths and stderr
   * go to the worker's log only, never into the run (the model, the run's events, the API).
   */
  async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const key = this.config.lifetime === 'run' ? ctx.runId : SHARED;
    const slot = await this.acquire(key, ctx.workspace);
    try {
      const connection = await slot.connection;
      const timeout = (this.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS) + SDK_TIMEOUT_MARGIN_MS;
      try {
        const options = { signal: ctx.signal, timeout, onprogress: () => ctx.heartbeat() };
        return toolOutputOf(await connection.client.callTool({ name: tool, arguments: args }, undefined, options));
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        if (!connection.closed) throw new McpServerError(this.config.name, `failed: ${causeOf(err)}`);
        throw this.failure(
          'stopped during the call',
          `${describeServer(this.config)}: ${causeOf(err)}${stderrNote(connection.stderrTail())}`,
        );
      }
    } finally {
      this.release(key, slot);
    }
  }

  /** Logs what went wrong in full for the operator, and returns the short error the run sees. */
  private failure(what: string, details: string): McpServerError {
    workerLog(`MCP server "${this.config.name}" ${what}: ${details}`);
    return new McpServerError(this.config.name, `${what} (the worker's log has the details)`);
  }

  /** Closes every connection; later calls fail. */
  close(): Promise<void> {
    this.closing ??= Promise.all(
      [...this.slots.values()].map(async (slot) => {
        clearTimeout(slot.idle);
        await (await slot.connection.catch(() => undefined))?.close();
      }),
    ).then(() => this.slots.clear());
    return this.closing;
  }

  /** The slot of `key`, opening a connection when there is none or the last one closed (a crashed server restarts). */
  private async acquire(key: string, workspace: string): Promise<Slot> {
    for (;;) {
      if (this.closing) {
        throw new Error(`MCP server "${this.config.name}": the worker is shutting down its MCP connections`);
      }
      const slot = this.slot(key, workspace);
      slot.inFlight++;
      clearTimeout(slot.idle);
      const connection = await slot.connection.catch((err: unknown) => err as Error);
      if (!(connection instanceof Error) && !connection.closed) return slot;
      slot.inFlight--;
      if (this.slots.get(key) === slot) this.slots.delete(key);
      if (connection instanceof Error) throw this.failure('could not start', connection.message);
    }
  }

  private slot(key: string, workspace?: string): Slot {
    let slot = this.slots.get(key);
    if (!slot) {
      const connection = connectMcp(this.config, key === SHARED ? undefined : workspace);
      slot = { connection, inFlight: 0 };
      this.slots.set(key, slot);
      // A failed start is not kept: the next call tries again.
      void connection.catch(() => this.slots.get(key) === slot && this.slots.delete(key));
    }
    return slot;
  }

  /** After a call: a run's connection that has nothing left to do closes once it has been idle long enough. */
  private release(key: string, slot: Slot): void {
    slot.inFlight--;
    if (key === SHARED || slot.inFlight > 0 || this.closing) return;
    slot.idle = setTimeout(() => {
      if (this.slots.get(key) !== slot || slot.inFlight > 0) return;
      this.slots.delete(key);
      void slot.connection.then(
        (c) => c.close(),
        () => undefined,
      );
    }, this.config.idleTimeoutMs ?? DEFAULT_MCP_IDLE_TIMEOUT_MS);
    slot.idle.unref();
  }
}

async function listAll(config: McpServerConfig, connection: McpConnection): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await connection.client.listTools(cursor ? { cursor } : undefined, {
        timeout: MCP_START_TIMEOUT_MS,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (err) {
    const which = `MCP server "${config.name}" (${describeServer(config)})`;
    throw new Error(`${which} could not list its tools: ${causeOf(err)}${stderrNote(connection.stderrTail())}`);
  }
  return tools;
}
