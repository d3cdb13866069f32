// The worker-side tool contract: a zod-typed tool with its code. Specs sent to workflows and models are
// derived from these definitions; the code never leaves the worker.
import { z } from 'zod';
import { SandboxUnavailableError, type Sandbox } from '../sandbox/sandbox';
import type { RemoteAgentConfig } from '../../common/remote-agents';

/** What a tool's `execute` receives besides its validated arguments. */
export interface ToolContext {
  /** Absolute, real path of the run's workspace; file tools must stay inside it. */
  workspace: string;
  /** Aborted when the activity is cancelled or times out. */
  signal: AbortSignal;
  /** Tells Temporal the tool is alive (long tools call it while they work). */
  heartbeat: (details?: unknown) => void;
  /** Stable per tool call across retries: tools with side effects use it to run their effect once. */
  idempotencyKey: string;
  /** The run this call belongs to. */
  runId: string;
  /** The model's id for this call. */
  toolCallId: string;
  /** The tenant the run belongs to (tools that read stores scope by it). */
  tenant?: string;
  /** The most UTF-8 bytes of output the run keeps inline (its maxToolOutputBytes); more is truncated. */
  maxOutputBytes?: number;
  /** Where tools that run programs (bash, grep, glob) run them: the worker's sandbox. */
  sandbox?: Sandbox;
  /**
   * A callback tool's start: where (and with which token) its outside work sends the result (define-callback-tool.ts).
   */
  callback?: { url: string; token: string; expiresAt: number };
}

/** The context's sandbox; a tool that runs programs refuses without one. */
export function sandboxOf(ctx: ToolContext): Sandbox {
  if (!ctx.sandbox) throw new SandboxUnavailableError('the worker gave this tool no sandbox');
  ctx.sandbox.check();
  return ctx.sandbox;
}

/** What a tool returns: text for the model, plus optional structured metadata (e.g. sources used). */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  metadata?: Record<string, unknown>;
}

/** A tool as registered in the worker. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  /**
   * The JSON Schema the model sees, for a tool that brings its own (an MCP server's tools); `parameters` must then
   * accept exactly what it describes. Default: generated from `parameters`.
   */
  jsonSchema?: Record<string, unknown>;
  execute: (args: z.infer<S>, ctx: ToolContext) => Promise<ToolOutput | string>;
  /** Start-to-close timeout of one execution, in ms (default 60 s). */
  timeoutMs?: number;
  /**
   * How long an execution may go without a heartbeat before Temporal retries it elsewhere (default: the timeout,
   * at most 15 s). Tools are heartbeaten every second while they run, so a dead worker is noticed this fast.
   */
  heartbeatTimeoutMs?: number;
  /** Attempts Temporal makes for a failing execution (default 3; 1 for tools that are not idempotent). */
  maxAttempts?: number;
  /** Whether running the tool twice is harmless; non-idempotent tools are not retried by default. */
  idempotent?: boolean;
  /** A remote A2A agent (made with defineRemoteAgentTool): a call sends once, then follows the remote task. */
  remoteAgent?: RemoteAgentConfig;
  /**
   * Short and idempotent (a lookup, a file read): the tool runs as a Temporal local activity, in the worker that
   * runs the workflow task asking for it, without a round trip through the server. Its timeout defaults to 10 s and
   * may not exceed 30 s; it requires `idempotent: true`, because after a worker crash it runs again from the start.
   */
  quick?: boolean;
  /**
   * How the tool uses the run's workspace, which is kept in the store so that any worker can run the next tool
   * (activities/workspace/): `read` (the default) brings the worker's copy up to date before the tool runs; `write`
   * also keeps what the tool changed, under the run's workspace quota; `none` skips both (web tools, lookups).
   */
  workspace?: 'none' | 'read' | 'write';
  /**
   * A callback tool (made with defineCallbackTool): `execute` only starts the outside work, given `ctx.callback`, and
   * the run then waits up to `timeoutMs` for the result sent to that URL (or through the client).
   */
  callback?: { timeoutMs: number };
}

/** Defines a tool; the identity function, typed so `execute` sees the parsed arguments. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}
