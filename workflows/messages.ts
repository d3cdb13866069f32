// Signals, queries and updates of Agio's workflows; clients import these definitions by name.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { EventsPage, EventsQueryInput, PublishBatch } from '../common';

/** A batch of events for the root run's log, from an activity or a nested run. */
export const publishSignal = defineSignal<[PublishBatch]>('publish');

/** Reads the root run's log after an offset (a Query: costs no history, any number of readers). */
export const eventsQuery = defineQuery<EventsPage, [EventsQueryInput]>('events');

/** A run's live state: what it is doing now. */
export const stateQuery = defineQuery<RunState>('state');

/** What the state query answers. */
export interface RunState {
  runId: string;
  agent: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  /** Index of the step being produced or run. */
  currentStep: number;
  modelCalls: number;
  toolCalls: number;
  /** Tool calls of the current turn still running. */
  runningTools: string[];
}
