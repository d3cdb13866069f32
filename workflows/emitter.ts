// How a run emits its events: the root appends to its own Wire; a nested run sends batches to the root's
// publish signal and awaits delivery, so the root has a child's events before the child's result.
import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { EventBase, EventDraft, EventType, RunContext } from '../common';
import { publishSignal } from '../common/messages';
import type { Wire } from './wire';

/** What a run with `stream: 'none'` still publishes: its start and end, and approvals (a person must see and answer them). */
const ALWAYS_PUBLISHED = new Set<EventType>([
  'RUN_STARTED',
  'RUN_COMPLETED',
  'RUN_FAILED',
  'RUN_CANCELLED',
  'TOOL_AUTH_REQUIRED',
  'TOOL_AUTH_GRANTED',
  'TOOL_AUTH_DENIED',
]);

/** Emits a run's own events. */
export interface Emitter {
  base: EventBase;
  /**
   * Publishes an event; resolves once the root has it. `as` replaces the envelope: a parent reports the end of a
   * child that could not report it itself (timed out or terminated by the server).
   */
  emit(event: Omit<EventDraft, keyof EventBase | 'timestamp'> & { timestamp?: number }, as?: EventBase): Promise<void>;
}

/** The envelope fields of a run, from its context. */
export function eventBase(context: RunContext, agent: string, nestingType?: EventDraft['nestingType']): EventBase {
  return {
    runId: context.runId,
    rootRunId: context.rootRunId,
    agent,
    depth: context.depth,
    ...(context.parentRunId ? { parentRunId: context.parentRunId } : {}),
    ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}),
    ...(nestingType && context.depth > 0 ? { nestingType } : {}),
    ...(context.traceId ? { traceId: context.traceId } : {}),
    ...(context.spanId ? { spanId: context.spanId } : {}),
  };
}

/** An emitter for the root (appends to `wire`) or for a nested run (signals the root). */
export function createEmitter(base: EventBase, wire: Wire | undefined, stream: 'full' | 'none' = 'full'): Emitter {
  let sequence = 0;
  // One publisher per workflow run: a continued-as-new child starts a new sequence under a new id.
  const publisherId = `run:${workflowInfo().runId}`;
  const root = wire ? undefined : getExternalWorkflowHandle(base.rootRunId);
  // Signals are sent one at a time: two in flight may be delivered out of order, and the Wire drops a batch
  // whose sequence is not above the last one it applied (parallel tool calls can emit concurrently).
  let delivered: Promise<void> = Promise.resolve();
  return {
    base,
    emit(event, as = base) {
      // `stream: 'none'` (an AgentTool that only reports its start and end) publishes lifecycle and approval events only.
      if (stream === 'none' && !ALWAYS_PUBLISHED.has(event.type)) return Promise.resolve();
      const draft: EventDraft = { ...as, ...event, timestamp: event.timestamp ?? Date.now() };
      if (wire) {
        wire.append(draft);
        return Promise.resolve();
      }
      const send = () => root!.signal(publishSignal, { publisherId, sequence: sequence++, events: [draft] });
      const sent = delivered.then(send);
      delivered = sent.catch(() => undefined);
      return sent;
    },
  };
}
