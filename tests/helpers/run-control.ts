// Helpers for integration tests of operator control (pause, resume, cancel) of workflow agents: when each
// sub-agent's answer starts and stops streaming, a loop whose first sub-agent streams slowly enough to pause in the
// middle of it, and the check that a parked run does nothing.
import type { Client } from '@temporalio/client';
import type { AgioClient, RunHandle } from '../../client/agio-client';
import { loopAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import type { TestBed } from './test-bed';
import { agentKey, agentOfRequest, historyLength, subAgent, waitFor } from './workflow-agents';

/** A's answer streams for about three seconds (20 chunks, 150 ms apart): long enough to pause in the middle of it. */
export const SLOW = { chunkSize: 2, delayMs: 150 };
export const SLOW_TEXT = 'A thinks slowly, very slowly, so slowly';

/** The model answers' chunks, per sub-agent (see {@link watchAgentStreams}). */
export interface AgentStreams {
  /** Resolves with the time the named agent's first chunk was written. */
  streaming(name: string): Promise<number>;
  /** When the last chunk of each agent's answers was written. */
  lastChunkAt: Map<string, number>;
}

/** Registers a beforeEach that follows the scripted model's chunks by sub-agent (it sets the server's `onChunk`). */
export function watchAgentStreams(bed: TestBed): AgentStreams {
  const lastChunkAt = new Map<string, number>();
  let seen = new Map<string, { at: Promise<number>; resolve: (at: number) => void }>();
  const entry = (name: string) => {
    if (!seen.has(name)) {
      let resolve!: (at: number) => void;
      const at = new Promise<number>((r) => (resolve = r));
      seen.set(name, { at, resolve });
    }
    return seen.get(name)!;
  };
  beforeEach(() => {
    lastChunkAt.clear();
    seen = new Map();
    bed.server.onChunk = ({ requestIndex, writtenAt }) => {
      const name = agentOfRequest(bed.server.requests[requestIndex]);
      if (name) {
        lastChunkAt.set(name, writtenAt);
        entry(name).resolve(writtenAt);
      }
    };
  });
  return { streaming: (name) => entry(name).at, lastChunkAt };
}

/** Starts a loop [A, B] run once, whose A streams slowly ({@link SLOW}) and B answers `B done`. */
export function startSlowLoop(bed: TestBed, name: string, via: AgioClient = bed.agio): Promise<RunHandle> {
  bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW));
  bed.server.scriptFor(agentKey('B'), text('B done'));
  return via.start(loopAgent({ name, subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 }), 'go');
}

/** Waits until the histories of `ids` have no workflow task pending, then returns their lengths. */
export async function settledHistoryLengths(client: Client, ids: string[]): Promise<number[]> {
  return waitFor(`the histories of ${ids.join(', ')} to settle`, async () => {
    const lengths: number[] = [];
    for (const id of ids) {
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const lastTask = [...events]
        .reverse()
        .find(
          (e) =>
            e.workflowTaskScheduledEventAttributes ||
            e.workflowTaskStartedEventAttributes ||
            e.workflowTaskCompletedEventAttributes,
        );
      if (!lastTask?.workflowTaskCompletedEventAttributes) return undefined;
      lengths.push(events.length);
    }
    return lengths;
  });
}

/**
 * Expects the parked workflows `ids` to cost nothing: once their last workflow task has completed, none has an
 * activity or a timer open, and their histories stay as they are for `quietMs`. A run that did not park schedules
 * its next step in that same workflow task (seen at once as an open activity, or as a child starting within a few
 * milliseconds on the dev server), so the window only needs to outlast that.
 */
export async function expectParkedIdle(client: Client, ids: string[], quietMs = 500): Promise<void> {
  const before = await settledHistoryLengths(client, ids);
  for (const id of ids) expect(await openWork(client, id)).toEqual({ activities: [], timers: [] });
  await new Promise((resolve) => setTimeout(resolve, quietMs));
  expect(await Promise.all(ids.map((id) => historyLength(client, id)))).toEqual(before);
}

/** The activities (by type) and timers (by id) a workflow's history has started and not yet closed. */
async function openWork(client: Client, workflowId: string): Promise<{ activities: string[]; timers: string[] }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const activities = new Map<string, string>();
  const timers = new Set<string>();
  for (const e of events) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes)
      activities.set(id, e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closed) activities.delete(String(closed.scheduledEventId));
    if (e.timerStartedEventAttributes) timers.add(e.timerStartedEventAttributes.timerId ?? '');
    const timerEnd = e.timerFiredEventAttributes ?? e.timerCanceledEventAttributes;
    if (timerEnd) timers.delete(timerEnd.timerId ?? '');
  }
  return { activities: [...activities.values()], timers: [...timers] };
}
