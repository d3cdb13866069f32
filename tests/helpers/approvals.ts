// Helpers for integration tests of tool approvals (docs/ARCHITECTURE.md, "Approvals"): agents whose calls ask first
// (and agents that delegate to them), waiting for
// a TOOL_AUTH_REQUIRED event in a root run's stream, the TOOL_AUTH trail of a stream, the `record` tool's runs, and
// the bridge's approvals inbox.
import type { Client } from '@temporalio/client';
import { asTool, defineAgent, type AgentSpec, type AgentSpecInput, type AgioEvent } from '../../common';
import { recordedToolCalls, type RecordedToolCall } from '../fixtures/test-tools';
import { request, type TestBridge } from './bridge';
import { waitForEvent } from './nested-runs';
import { waitFor } from './workflow-agents';

/** The data of a TOOL_AUTH_* event. */
export interface AuthData {
  workflowId: string;
  runId: string;
  toolCallId: string;
  tool: string;
  args?: unknown;
  reason?: string;
  by?: string;
  message?: string;
  remember?: boolean;
  binding?: string;
  action?: string;
  escalatedTo?: string;
}

/**
 * An LLM agent with its own routing key (`You are <name>.`); `record` asks for approval unless `extra` says otherwise.
 */
export function askingAgent(name: string, extra: Partial<AgentSpecInput> = {}): AgentSpec {
  return defineAgent({
    name,
    instructions: `You are ${name}.`,
    tools: ['record'],
    permissions: [{ tool: 'record', action: 'ask' }],
    ...extra,
  });
}

/** An LLM agent with its own routing key (`You are <name>.`) whose one tool is `child`, an agent used as a tool. */
export function delegatingAgent(
  name: string,
  child: AgentSpec,
  description = `Delegates to ${child.name}.`,
): AgentSpec {
  return defineAgent({ name, instructions: `You are ${name}.`, tools: [asTool(child, { description })] });
}

/** The routing key of an agent made by {@link askingAgent}. */
export const keyOf = (agent: AgentSpec): string => `You are ${agent.name}.`;

/** Resolves with the TOOL_AUTH_REQUIRED event of `toolCallId` once the root's stream holds it. */
export function waitForAsk(
  client: Client,
  rootRunId: string,
  toolCallId: string,
): Promise<AgioEvent & { data: AuthData }> {
  return waitForEvent(
    client,
    rootRunId,
    (e) => e.type === 'TOOL_AUTH_REQUIRED' && authData(e).toolCallId === toolCallId,
  ) as Promise<AgioEvent & { data: AuthData }>;
}

/** Resolves with the first event of `type` about `toolCallId` once the root's stream holds it. */
export function waitForAuth(
  client: Client,
  rootRunId: string,
  type: 'TOOL_AUTH_GRANTED' | 'TOOL_AUTH_DENIED' | 'TOOL_AUTH_EXPIRED',
  toolCallId: string,
): Promise<AgioEvent & { data: AuthData }> {
  return waitForEvent(client, rootRunId, (e) => e.type === type && authData(e).toolCallId === toolCallId) as Promise<
    AgioEvent & { data: AuthData }
  >;
}

/** The data of a TOOL_AUTH_* event, typed. */
export function authData(event: AgioEvent): AuthData {
  return (event.data ?? {}) as unknown as AuthData;
}

/** `[type, toolCallId]` of every TOOL_AUTH_* event of a stream, in order. */
export function authTrail(events: AgioEvent[]): [string, string][] {
  return events.filter((e) => e.type.startsWith('TOOL_AUTH_')).map((e) => [e.type, authData(e).toolCallId]);
}

/** The executions of the `record` tool by one run in this process (in-process workers only). */
export function recordsOf(runId: string): RecordedToolCall[] {
  return recordedToolCalls.filter((r) => r.runId === runId);
}

/** One item of GET /approvals. */
export type InboxEntry = Record<string, unknown> & { toolCallId: string; runId: string; binding: string };

/** GET /approvals (query: agent, rootRunId, tool, limit) as `token`; throws unless it answers 200. */
export async function inbox(
  bridge: TestBridge,
  token: string,
  query: Record<string, string> = {},
): Promise<InboxEntry[]> {
  const qs = new URLSearchParams(query).toString();
  const { status, body } = await request(`${bridge.url}/approvals${qs ? `?${qs}` : ''}`, { token });
  if (status !== 200) throw new Error(`GET /approvals answered ${status}: ${JSON.stringify(body)}`);
  return body.approvals as InboxEntry[];
}

/** Resolves with the inbox once `ready` holds of it (visibility lags the runs a moment). */
export function waitForInbox(
  bridge: TestBridge,
  token: string,
  ready: (items: InboxEntry[]) => boolean,
  query: Record<string, string> = {},
): Promise<InboxEntry[]> {
  return waitFor('the approvals inbox', async () => {
    const items = await inbox(bridge, token, query);
    return ready(items) && items;
  });
}

/** POSTs a decision on a call of run `runId` (body: binding, message, remember) as `token`. */
export function decide(
  bridge: TestBridge,
  token: string,
  runId: string,
  toolCallId: string,
  decision: 'approve' | 'deny',
  body: Record<string, unknown> = {},
) {
  return request(`${bridge.url}/runs/${encodeURIComponent(runId)}/tool-calls/${toolCallId}/${decision}`, {
    token,
    body,
  });
}
