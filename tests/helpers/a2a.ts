// A2A test helpers: a real @a2a-js/sdk client of one agent on the bridge (its card fetched with a bearer token), and
// the messages and requests tests send with it.
import {
  Role,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';

/** `fetch` sending `Authorization: Bearer <token>` (none without a token). */
export function fetchWithToken(token: string | undefined): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The base URL of an agent's A2A endpoint on a bridge (its card is under it). */
export const agentUrl = (bridgeUrl: string, agent: string): string => `${bridgeUrl}/a2a/agents/${agent}/`;

/** An SDK client of an agent at `baseUrl` (its card at `<baseUrl>.well-known/agent-card.json`). */
export async function a2aClient(baseUrl: string, token?: string): Promise<Client> {
  const fetchImpl = fetchWithToken(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** A user's message of text (or a data part), optionally continuing a task or context. */
export function userMessage(content: string | object, ids: { taskId?: string; contextId?: string } = {}): Message {
  const part =
    typeof content === 'string'
      ? { content: { $case: 'text' as const, value: content }, mediaType: 'text/plain' }
      : { content: { $case: 'data' as const, value: content }, mediaType: 'application/json' };
  return {
    messageId: randomUUID(),
    taskId: ids.taskId ?? '',
    contextId: ids.contextId ?? '',
    role: Role.ROLE_USER,
    parts: [{ ...part, metadata: undefined, filename: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A SendMessage request. */
export function sendRequest(
  message: Message,
  opts: { returnImmediately?: boolean; push?: Partial<TaskPushNotificationConfig> } = {},
): SendMessageRequest {
  const push = opts.push
    ? { tenant: '', id: '', taskId: '', url: '', token: '', authentication: undefined, ...opts.push }
    : undefined;
  return {
    tenant: '',
    message,
    metadata: undefined,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: push,
      returnImmediately: opts.returnImmediately ?? false,
    },
  };
}

/** Every response of a stream, in order. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const r of stream) all.push(r);
  return all;
}

/** The `$case` of each response, with the state of status updates (`statusUpdate:3`). */
export const shapeOf = (responses: StreamResponse[]): string[] =>
  responses.map((r) =>
    r.payload?.$case === 'statusUpdate'
      ? `statusUpdate:${r.payload.value.status?.state}`
      : r.payload?.$case === 'task'
        ? `task:${r.payload.value.status?.state}`
        : (r.payload?.$case ?? 'none'),
  );
