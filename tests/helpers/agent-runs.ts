// Helpers for integration tests of the agentRun workflow: start a run, hold a model answer back, read what the
// model was sent, and read the activity events of a run's history (which workflow task scheduled what, which
// attempt completed).
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { AgentRunInput, RunOutput } from '../../common';
import {
  text,
  toolCall,
  toolCalls,
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptedResponder,
  type ScriptedTurn,
} from '../../devkit/scripted-model-server';
import { uniqueId } from './temporal';
import type { CallModelInput } from '../../common/contracts/model-call';

/** Starts an agentRun workflow on `taskQueue` under a fresh workflow id (or the given one). */
export function startRun(
  client: Client,
  taskQueue: string,
  input: AgentRunInput,
  workflowId = uniqueId('run'),
): Promise<WorkflowHandle> {
  return client.workflow.start('agentRun', { taskQueue, workflowId, args: [input] });
}

/** Starts a run and waits for its output. */
export async function runToEnd(
  client: Client,
  taskQueue: string,
  input: AgentRunInput,
  workflowId?: string,
): Promise<{ output: RunOutput; handle: WorkflowHandle }> {
  const handle = await startRun(client, taskQueue, input, workflowId);
  return { output: (await handle.result()) as RunOutput, handle };
}

/** `turns` model turns, each asking for `calls` big_output tool calls of `bytes` bytes (ids `call_<turn>_<call>`). */
export function bigOutputTurns(turns: number, calls: number, bytes: number): ScriptedTurn[] {
  return Array.from({ length: turns }, (_, t) =>
    toolCalls(Array.from({ length: calls }, (_, i) => toolCall('big_output', { bytes }, { id: `call_${t}_${i}` }))),
  );
}

/**
 * A scripted model answer held back until `release()`: the model request stays open, silent, until then. `asked`
 * resolves once the model has been asked (the request is open).
 */
export function heldAnswer(turn: ScriptedTurn): {
  answer: ScriptedResponder;
  release: () => void;
  asked: Promise<void>;
} {
  let release!: () => void;
  let ask!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const asked = new Promise<void>((resolve) => (ask = resolve));
  return {
    answer: async () => {
      ask();
      await gate;
      return turn;
    },
    release,
    asked,
  };
}

/**
 * A scripted answer streamed slowly (2-character chunks 150 ms apart) and a promise that resolves once its stream
 * has written chunk `chunkIndex`: the moment to kill a worker mid-stream. It sets the server's `onChunk` hook.
 */
export function slowAnswer(
  server: ScriptedModelServer,
  content: string,
  chunkIndex: number,
): { answer: ScriptedResponder; reached: Promise<void> } {
  let requestIndex = -1;
  const reached = new Promise<void>((resolve) => {
    server.onChunk = (chunk) => {
      if (chunk.requestIndex === requestIndex && chunk.chunkIndex === chunkIndex) resolve();
    };
  });
  const answer: ScriptedResponder = (_req, i) => {
    requestIndex = i;
    return text(content, { chunkSize: 2, delayMs: 150 });
  };
  return { answer, reached };
}

/** A chat message as the model received it. */
export interface SentMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
}

/** The messages of a recorded chat-completions request. */
export function sentMessages(request: RecordedRequest): SentMessage[] {
  return request.body.messages as SentMessage[];
}

/** The tool results in a request, in order, as `{ id, content }`. */
export function sentToolResults(request: RecordedRequest): { id: string | undefined; content: string }[] {
  return sentMessages(request)
    .filter((m) => m.role === 'tool')
    .map((m) => ({ id: m.tool_call_id, content: m.content ?? '' }));
}

/** The tool result the model received for `toolCallId` (throws when there is none). */
export function sentToolResult(request: RecordedRequest, toolCallId: string): string {
  const found = sentToolResults(request).find((r) => r.id === toolCallId);
  if (!found)
    throw new Error(`no tool result for ${toolCallId} in the request; got ${JSON.stringify(sentToolResults(request))}`);
  return found.content;
}

/** Names of the tools offered in a request (empty when the request has no `tools`). */
export function offeredTools(request: RecordedRequest): string[] {
  return ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
}

/** A workflow history as `fetchHistory()` returns it. */
export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type Int64 = number | { toNumber(): number } | null | undefined;
/** An int64 field of a history event (a number, a Long, or unset) as a number; 0 when unset. */
export const num = (v: Int64): number => (v == null ? 0 : typeof v === 'number' ? v : v.toNumber());

/** One activity of a history: when it was scheduled and by which workflow task, and how it ended. */
export interface ActivityRecord {
  type: string;
  activityId: string;
  scheduledEventId: number;
  /** The WorkflowTaskCompleted event whose commands scheduled it. */
  workflowTaskCompletedEventId: number;
  /** Attempt of the start that completed it (undefined when it did not complete). */
  completedAttempt?: number;
  completed: boolean;
}

/** The activities of a history in scheduling order (optionally only those of one type). */
export function activities(history: History, type?: string): ActivityRecord[] {
  const byScheduled = new Map<number, ActivityRecord>();
  const attemptByStarted = new Map<number, number>();
  for (const e of history.events ?? []) {
    const id = num(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      byScheduled.set(id, {
        type: scheduled.activityType?.name ?? '',
        activityId: scheduled.activityId ?? '',
        scheduledEventId: id,
        workflowTaskCompletedEventId: num(scheduled.workflowTaskCompletedEventId),
        completed: false,
      });
    }
    if (e.activityTaskStartedEventAttributes)
      attemptByStarted.set(id, e.activityTaskStartedEventAttributes.attempt ?? 0);
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const record = byScheduled.get(num(done.scheduledEventId));
      if (record) {
        record.completed = true;
        record.completedAttempt = attemptByStarted.get(num(done.startedEventId));
      }
    }
  }
  return [...byScheduled.values()].filter((a) => type === undefined || a.type === type);
}

/** The input a history's run started with (its WorkflowExecutionStarted event's first argument). */
export function startInput<T>(history: History): T {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return JSON.parse(Buffer.from(payload!.data!).toString('utf8')) as T;
}

/** Event ids of the WorkflowTaskCompleted events of a history. */
export function workflowTaskCompletedIds(history: History): number[] {
  return (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => num(e.eventId));
}

/** The inputs of a history's callModel activities, in scheduling order. */
export function callModelInputs(history: History): CallModelInput[] {
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'callModel')
    .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0].data!).toString('utf8')) as CallModelInput);
}
