// Helpers for integration tests of nested runs (agents used as tools): read a root run's whole stream (or its log as
// it is now), pick the model requests one agent made, and read which child workflows a history started and in
// which workflow task.
import type { Client } from '@temporalio/client';
import { AgioClient } from '../../client/agio-client';
import {
  endsStream,
  logOwnerOf,
  typedEvent,
  type AgentRunInput,
  type AgioEvent,
  type RunOutput,
  type WireEvent,
} from '../../common';
import type { RecordedRequest, ScriptedModelServer } from '../../devkit/scripted-model-server';
import { eventsQuery } from '../../common/messages';
import type { EventLogStore } from '../../stores';
import { num, sentMessages, startRun, type History } from './agent-runs';

/** Every event of a root run's stream, read live through AgioClient until the root's terminal event. */
export async function readStream(client: Client, rootRunId: string): Promise<AgioEvent[]> {
  const events: AgioEvent[] = [];
  for await (const event of new AgioClient(client).getHandle(rootRunId).stream({ maxPollMs: 100 })) events.push(event);
  return events;
}

/** Starts a run, reads its whole stream live meanwhile, and returns the stream with the run's output. */
export async function runAndStream(
  client: Client,
  taskQueue: string,
  input: AgentRunInput,
  workflowId?: string,
): Promise<{ rootRunId: string; events: AgioEvent[]; output: RunOutput }> {
  const handle = await startRun(client, taskQueue, input, workflowId);
  const [events, output] = await Promise.all([
    readStream(client, handle.workflowId),
    handle.result() as Promise<RunOutput>,
  ]);
  return { rootRunId: handle.workflowId, events, output };
}

/**
 * Every event of every log once and in order. Offsets are per log (a nested run that keeps its own log has its own,
 * from 0): each log's offsets are 0..n-1 with no gap but the two pointers (start and end copies, not streamed) of each
 * child that keeps its own log. An older tree is one log: offsets 0..n-1 in stream order.
 */
export function expectWholeLogs(events: AgioEvent[]): void {
  const logs = new Map<string, number[]>();
  for (const e of events) logs.set(logOwnerOf(e), [...(logs.get(logOwnerOf(e)) ?? []), e.offset]);
  for (const [log, offsets] of logs) {
    const children = new Set(events.filter((e) => e.ownLog && e.parentRunId === log).map((e) => e.runId)).size;
    expect({ log, offsets }).toEqual({ log, offsets: [...new Set(offsets)].sort((a, b) => a - b) });
    expect({ log, first: offsets[0], end: offsets[offsets.length - 1] + 1 }).toEqual({
      log,
      first: 0,
      end: offsets.length + 2 * children,
    });
  }
}

/** {@link expectWholeLogs}, and only the last event — the root's terminal one, of `type` — ends the stream. */
export function expectWholeStream(
  events: AgioEvent[],
  rootRunId: string,
  type: AgioEvent['type'] = 'RUN_COMPLETED',
): void {
  expectWholeLogs(events);
  expect(events.filter(endsStream)).toEqual([events[events.length - 1]]);
  expect(events[events.length - 1]).toMatchObject({ type, depth: 0, runId: rootRunId });
}

/**
 * The stores' event logs hold what the stream delivered: each run's own log (the root's, and each nested run's that
 * keeps one) has that log's streamed events, and besides them only the pointers to its children's logs. Timestamps
 * are left out (a replayed page can time an event that follows a local activity a few ms differently).
 */
export async function expectStoredLogs(
  events: Pick<EventLogStore, 'read'>,
  tenant: string,
  streamed: AgioEvent[],
): Promise<void> {
  for (const log of new Set(streamed.map(logOwnerOf))) {
    const stored = await events.read(tenant, log, -1, 10_000);
    expect(withoutTimestamps(stored.filter((e) => logOwnerOf(e) === log))).toEqual(
      withoutTimestamps(streamed.filter((e) => logOwnerOf(e) === log)),
    );
    expect(stored.filter((e) => logOwnerOf(e) !== log).every((e) => e.ownLog && e.parentRunId === log)).toBe(true);
  }
}

/** The requests whose system prompt contains `key` (each test agent has distinct instructions). */
export function requestsOf(server: ScriptedModelServer, key: string): RecordedRequest[] {
  return server.requests.filter((r) =>
    sentMessages(r)
      .find((m) => m.role === 'system')
      ?.content?.includes(key),
  );
}

/** Events without their timestamps (a replayed read may time an event that follows a local activity differently). */
export function withoutTimestamps(events: WireEvent[]): Omit<WireEvent, 'timestamp'>[] {
  return events.map(({ timestamp: _timestamp, ...event }) => event);
}

/** Events of one run (by runId), in stream order. */
export function eventsOf(events: AgioEvent[], runId: string): AgioEvent[] {
  return events.filter((e) => e.runId === runId);
}

/**
 * The run tree's events as they are now (no waiting): the root's log, and in place of each pointer to a nested run
 * that keeps its own log (its start copy), that run's log as it is now (recursively); older trees: the root's log.
 */
export async function eventsNow(client: Client, rootRunId: string): Promise<AgioEvent[]> {
  const events: AgioEvent[] = [];
  const page = await client.workflow.getHandle(rootRunId).query(eventsQuery, { after: -1, limit: 1000 });
  for (const e of page.events) {
    if (!e.ownLog || e.runId === rootRunId) events.push(typedEvent(e));
    else if (e.type === 'RUN_STARTED') events.push(...(await eventsNow(client, e.runId)));
  }
  return events;
}

/** Resolves once the stream so far holds an event matching `match` (reads through AgioClient). */
export async function waitForEvent(
  client: Client,
  rootRunId: string,
  match: (e: AgioEvent) => boolean,
): Promise<AgioEvent> {
  for await (const event of new AgioClient(client).getHandle(rootRunId).stream({ maxPollMs: 50 }))
    if (match(event)) return event;
  throw new Error(`the stream of ${rootRunId} ended without a matching event`);
}

/** One StartChildWorkflowExecutionInitiated event: the child's id and the workflow task that started it. */
export interface ChildStart {
  workflowId: string;
  eventId: number;
  workflowTaskCompletedEventId: number;
}

/** The child workflows a history started, in order. */
export function childStarts(history: History): ChildStart[] {
  return (history.events ?? [])
    .filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
    .map((e) => ({
      workflowId: e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId ?? '',
      eventId: num(e.eventId),
      workflowTaskCompletedEventId: num(
        e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId,
      ),
    }));
}
