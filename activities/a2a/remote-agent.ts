// Calling a remote A2A agent (docs/ARCHITECTURE.md, "A2A"): connect through its card (guarded fetch, bearer token
// from the environment), send the call's message once (its id derived from the call, so a retried send is the same
// message), and follow the remote task by polling it until it ends, reading what it answered as the tool's result.
// Everything the remote agent says is untrusted: bounded, and given to the model as a tool's output.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import type { RemoteAgentConfig, RemoteTaskRef, RemoteToolResult } from '../../common/remote-agents';
import { guardedFetch } from './remote-fetch';

/** Longest text a remote agent's answer gives the model (more is cut, and the cut said). */
export const MAX_REMOTE_RESULT_CHARS = 32 * 1024;
/** One request's timeout. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A client of the remote agent (its card read anew: it may have moved). */
export async function connectRemoteAgent(config: RemoteAgentConfig): Promise<Client> {
  const guarded = guardedFetch({ allowPrivate: config.allowPrivateAddresses === true, timeoutMs: REQUEST_TIMEOUT_MS });
  const token = config.tokenEnv ? process.env[config.tokenEnv] : undefined;
  if (config.tokenEnv && !token) throw new Error(`remote agent "${config.name}": ${config.tokenEnv} is not set`);
  const fetchImpl: typeof fetch = (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return guarded(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(config.cardUrl, '');
}

/** The ids a call's message and context take: the same for every attempt of the call. */
export function callIds(runId: string, toolCallId: string): { messageId: string; contextId: string } {
  const hash = createHash('sha256')
    .update(JSON.stringify([runId, toolCallId]))
    .digest('hex')
    .slice(0, 32);
  return { messageId: `agio-${hash}`, contextId: `agio-${hash}` };
}

/** The user's message of a call. */
export function callMessage(text: string, ids: { messageId: string; contextId: string }): Message {
  const part: Part = {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
  return {
    ...ids,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [part],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Sends the message; the remote task to follow, or the result when the agent answered at once. */
export async function sendToRemote(
  client: Client,
  message: Message,
): Promise<{ task: RemoteTaskRef } | { result: RemoteToolResult }> {
  const answer = await client.sendMessage({
    tenant: '',
    message,
    metadata: undefined,
    configuration: {
      acceptedOutputModes: ['text/plain', 'application/json'],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
  });
  if (!('id' in answer)) return { result: { content: bounded(textOf(answer.parts)), isError: false } };
  const result = resultOf(answer);
  return result ? { result } : { task: { taskId: answer.id, contextId: answer.contextId } };
}

/**
 * Polls the task until it ends (heartbeating: a worker restart resumes here with the same task), cancelling it past
 * `deadline`. Remote errors reading it are retried by the activity; an answer it cannot read ends the call.
 */
export async function followRemote(client: Client, task: RemoteTaskRef, deadline: number): Promise<RemoteToolResult> {
  const ctx = Context.current();
  for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
    ctx.heartbeat(task);
    const now = await client.getTask({ tenant: '', id: task.taskId, historyLength: 0 });
    const result = resultOf(now);
    if (result) return result;
    if (Date.now() >= deadline) {
      await client.cancelTask({ tenant: '', id: task.taskId, metadata: undefined }).catch(() => undefined);
      return {
        content: `Error: the remote agent did not finish its task ${task.taskId} in time; it was cancelled`,
        isError: true,
      };
    }
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), undefined, { signal: ctx.cancellationSignal });
  }
}

/** The result a task ended with (or stopped at, waiting for input this tool cannot give); undefined while it works. */
export function resultOf(task: Task): RemoteToolResult | undefined {
  const said = textOf(task.status?.message?.parts);
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED: {
      const output = task.artifacts
        .map((a) => textOf(a.parts))
        .filter(Boolean)
        .join('\n\n');
      return { content: bounded(output || said), isError: false };
    }
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED:
      return {
        content: bounded(
          `Error: the remote agent's task ${task.status.state === TaskState.TASK_STATE_FAILED ? 'failed' : 'was rejected'}: ${said}`,
        ),
        isError: true,
      };
    case TaskState.TASK_STATE_CANCELED:
      return { content: 'Error: the remote agent cancelled its task', isError: true };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return {
        content: bounded(
          `Error: the remote agent stopped to ask for more input, which this tool cannot give (task ${task.id}): ${said}`,
        ),
        isError: true,
      };
    default:
      return undefined;
  }
}

/** The text of parts: text as it is, data as JSON, files named. */
function textOf(parts: Part[] | undefined): string {
  return (parts ?? [])
    .map((p) =>
      p.content?.$case === 'text'
        ? p.content.value
        : p.content?.$case === 'data'
          ? JSON.stringify(p.content.value)
          : p.content
            ? `[${p.content.$case} part${p.filename ? ` ${p.filename}` : ''}]`
            : '',
    )
    .filter(Boolean)
    .join('\n');
}

/** Text cut to MAX_REMOTE_RESULT_CHARS, saying so. */
function bounded(text: string): string {
  return text.length <= MAX_REMOTE_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_REMOTE_RESULT_CHARS)}\n[cut: the remote answer had ${text.length} characters]`;
}
