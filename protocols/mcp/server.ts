// The MCP server of Agio's agents, for one caller (MCP 2025-11-25 with its Tasks; the SDK's server speaks the
// protocol, this file only answers): tools/list names the agents; tools/call starts a run, answering a task at once
// when the client asks for one (task id = run id), else the run's result once it ends, with progress from its stream;
// tasks/result waits for the run, with progress too. tasks/get, tasks/list and tasks/cancel go through the task store.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  ListToolsRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgioClient, RunHandle } from '../../client/agio-client';
import { AgentToolArguments, agentTool, toolError } from './agent-tools';
import { followRun } from './progress';
import { runResult } from './run-results';
import { RunTasks, type McpCaller } from './run-tasks';
import { RunTaskStore, requireAction } from './task-store';

/** Options of {@link createAgioMcpServer}. */
export interface AgioMcpServerOptions {
  agio: AgioClient;
  caller: McpCaller;
  /** The version the server names in its handshake. */
  version: string;
  /**
   * Called before a run starts (the bridge's running-runs quota): throws to refuse, or returns what gives the place
   * back when the start then fails.
   */
  admitStart?: () => Promise<() => void>;
}

/** An MCP server (not yet connected) answering one caller: connect it to a transport. */
export function createAgioMcpServer(opts: AgioMcpServerOptions): Server {
  const { agio } = opts;
  const runs = new RunTasks(agio, opts.caller);
  const server = new Server(
    { name: 'agio', version: opts.version },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new RunTaskStore(runs),
      instructions:
        'Each tool is an Agio agent: its input is the prompt. A call may run for long (tools, approvals by people): ' +
        'ask for a task to follow it; its task id is the run id.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => {
    requireAction(runs, 'read');
    return { tools: agio.agents.list().map(agentTool) };
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
      requireAction(runs, 'start');
      const { name, arguments: args, task } = request.params;
      if (!agio.agents.find(name))
        throw new McpError(ErrorCode.InvalidParams, `no agent "${name}" here: tools/list names the agents`);
      const parsed = AgentToolArguments.safeParse(args ?? {});
      if (!parsed.success) {
        const message = `invalid arguments for agent "${name}": ${parsed.error.issues.map((i) => i.message).join('; ')}`;
        // A task request must be answered with a task or an error; a plain call with a tool error its model can read.
        if (task) throw new McpError(ErrorCode.InvalidParams, message);
        return toolError(message);
      }
      const started = await startRun(opts, name, parsed.data).catch((err: Error) => err);
      if (started instanceof Error) {
        if (task) throw new McpError(ErrorCode.InvalidRequest, started.message);
        return toolError(started.message);
      }
      if (task) return { task: runs.created(started.runId) };
      // No task: the call waits for the run, with progress from its stream when the client asked for it.
      return resultWhenEnded(agio, { handle: started, agent: name }, extra);
    },
  );

  // tasks/result: the SDK's own polls its store; this one waits on the run and sends progress from its stream.
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    requireAction(runs, 'read');
    const { taskId } = request.params;
    const run = await runs.find(taskId);
    if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const result = await resultWhenEnded(agio, run, extra);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });

  return server;
}

/** Starts a run of the agent for the caller, inside the admission hook. */
async function startRun(opts: AgioMcpServerOptions, agent: string, args: AgentToolArguments): Promise<RunHandle> {
  const release = (await opts.admitStart?.()) ?? (() => undefined);
  try {
    return await opts.agio.start(agent, args.input, {
      tenant: opts.caller.tenant,
      ...(args.sessionId ? { sessionId: args.sessionId } : {}),
    });
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Waits for the run to end (following its stream, with progress when the client sent a token), then answers with
 * its result; a request that ends first (the client went away) stops following: the run goes on.
 */
async function resultWhenEnded(
  agio: AgioClient,
  run: { handle: RunHandle; agent?: string },
  extra: {
    _meta?: { progressToken?: string | number };
    sendNotification: (n: ServerNotification) => Promise<void>;
    signal: AbortSignal;
  },
): Promise<CallToolResult> {
  const ended = await followRun(run.handle, extra._meta?.progressToken, extra.sendNotification, extra.signal);
  if (!ended)
    throw new McpError(ErrorCode.ConnectionClosed, `the request ended before run ${run.handle.runId}; it goes on`);
  return runResult(agio, run);
}
