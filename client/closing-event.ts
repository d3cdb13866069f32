// The synthetic terminal event a reader ends a closed root's stream with when its log has none: a root terminated
// or timed out in Temporal never ran the code that writes one, and without it a reader would read the closed run
// (a full replay per page) for as long as it stays connected.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { ErrorType, runStatusOf, type WireEvent, type EventBase, type EventsPage, type RunMemo } from '../common';

/** What Temporal says of the closed root, and how the stream's last event tells it. */
const CLOSINGS: Record<string, Pick<WireEvent, 'type' | 'data'>> = {
  TERMINATED: {
    type: 'RUN_FAILED',
    data: { error: { type: ErrorType.Terminated, message: 'the run was terminated in Temporal' } },
  },
  TIMED_OUT: {
    type: 'RUN_FAILED',
    data: { error: { type: ErrorType.TimedOut, message: 'the run passed its Temporal execution timeout' } },
  },
  FAILED: { type: 'RUN_FAILED', data: { error: { type: 'Error', message: 'the run failed in Temporal' } } },
  CANCELLED: { type: 'RUN_CANCELLED', data: {} },
  COMPLETED: { type: 'RUN_COMPLETED', data: {} },
};

/**
 * The event that ends the log of a run that closed without its terminal event, at `offset` (the one after its
 * log's last), marked `data.synthetic: true`; undefined while Temporal says the run is still open. A nested run that
 * keeps its own log is described by `base` (from its start pointer); without it, the run is a root.
 */
export function closingEvent(
  rootRunId: string,
  description: Pick<WorkflowExecutionDescription, 'status' | 'memo' | 'closeTime'>,
  offset: number,
  base?: Partial<EventBase>,
): WireEvent | undefined {
  const closing = CLOSINGS[description.status.name];
  if (!closing) return undefined;
  const memo = description.memo as Partial<RunMemo> | undefined;
  return {
    type: closing.type,
    runId: rootRunId,
    rootRunId,
    agent: memo?.agent ?? 'unknown',
    depth: 0,
    data: { ...closing.data, synthetic: true, status: runStatusOf(description.status.name) },
    timestamp: description.closeTime?.getTime() ?? Date.now(),
    ...base,
    offset,
  };
}

/** `page` (the last of a closed root's log, without a terminal event) ended with `event`. */
export function endedWith(page: EventsPage, event: WireEvent): EventsPage {
  return { ...page, events: [...page.events, event], lastOffset: event.offset, ended: true };
}
