// Helpers for integration tests of workflow agents (loop, sequential, parallel) and operator control: LLM
// sub-agents the scripted model tells apart, the AGENT_STATE trail of a stream, waiting for an observable
// condition (an activity's heartbeat among them), and the size and run chain of a workflow's history.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defineAgent, type AgentSpec, type AgentSpecInput, type AgioEvent } from '../../common';
import type { RecordedRequest, ScriptedModelServer } from '../../devkit/scripted-model-server';
import { sentMessages } from './agent-runs';
import { requestsOf } from './nested-runs';

/** The text that routes a sub-agent's model requests: its instructions start with it. */
export function agentKey(name: string): string {
  return `[agent ${name}]`;
}

/** An LLM sub-agent whose instructions begin with its routing key (plus `instructions`, if given). */
export function subAgent(name: string, extra: Partial<AgentSpecInput> = {}): AgentSpec {
  const { instructions, ...rest } = extra;
  return defineAgent({
    name,
    ...rest,
    instructions: `${agentKey(name)} You are ${name}.${instructions ? ` ${instructions}` : ''}`,
  });
}

/** The model requests one sub-agent made, in order. */
export function requestsOfAgent(server: ScriptedModelServer, name: string): RecordedRequest[] {
  return requestsOf(server, agentKey(name));
}

/** Which sub-agent made a request (by its routing key), or undefined. */
export function agentOfRequest(request: RecordedRequest): string | undefined {
  const system = sentMessages(request).find((m) => m.role === 'system')?.content ?? '';
  return /^\[agent ([^\]]+)\]/.exec(system)?.[1];
}

/** The system prompt a request carried. */
export function systemPrompt(request: RecordedRequest): string {
  return sentMessages(request).find((m) => m.role === 'system')?.content ?? '';
}

/** One loop position as an AGENT_STATE event reports it. */
export interface Position {
  timesLooped?: number;
  currentSubAgent?: string;
}

/** The AGENT_STATE events of one run (by default the root, depth 0), as `{ timesLooped, currentSubAgent }`. */
export function agentStates(events: AgioEvent[], runId?: string): Position[] {
  return events
    .filter((e) => e.type === 'AGENT_STATE' && (runId ? e.runId === runId : e.depth === 0))
    .map((e) => {
      const data = e.data as Position;
      return {
        ...(data.timesLooped !== undefined ? { timesLooped: data.timesLooped } : {}),
        currentSubAgent: data.currentSubAgent,
      };
    });
}

/** `[timesLooped, name]` pairs for each iteration × sub-agent, in loop order. */
export function trail(iterations: number[], names: string[]): Position[] {
  return iterations.flatMap((timesLooped) => names.map((currentSubAgent) => ({ timesLooped, currentSubAgent })));
}

/** `T` without its falsy members. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Resolves once `check` returns a truthy value (polled every 50 ms); fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves with the last heartbeat time the server recorded for the workflow's pending activity of `type`. */
export function waitForHeartbeat(client: Client, workflowId: string, type = 'callModel'): Promise<number> {
  return waitFor(`a heartbeat of ${workflowId}'s ${type}`, async () => {
    const { raw } = await client.workflow.getHandle(workflowId).describe();
    const at = raw.pendingActivities?.find((a) => a.activityType?.name === type)?.lastHeartbeatTime;
    return at ? Number(at.seconds) * 1000 + (at.nanos ?? 0) / 1e6 : undefined;
  });
}

/** The number of events in a workflow's current history. */
export async function historyLength(client: Client, workflowId: string): Promise<number> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
}

/** The Temporal runs of a workflow id, first to last (following `continuedExecutionRunId` back from the latest). */
export async function runChain(client: Client, workflowId: string): Promise<{ runId: string; status: string }[]> {
  const chain: { runId: string; status: string }[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    chain.unshift({ runId, status: (await handle.describe()).status.name });
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await handle.fetchHistory();
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return chain;
}

/** Offsets 0..n-1 in order: no gap, no duplicate. */
export function offsetsOf(events: AgioEvent[]): number[] {
  return events.map((e) => e.offset);
}
