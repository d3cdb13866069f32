// How a run emits its events: a run with its own Wire (the root; in newer trees every run) appends to it; a nested run
// of an older tree sends them to its root's publish signal. A nested run also sends its parent copies of its start
// and end (or in older trees every event) and awaits their delivery, so the parent has them before the child's result.
import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { isTerminalType, type EventBase, type EventDraft, type EventType, type RunContext } from '../../common';
import { publishSignal } from '../../common/messages';
import type { Wire } from './wire';

/**
 * What a run with `stream: 'none'` still publishes: its start and end, approvals (a person must see and answer them),
 * and a callback tool's wait (completed by tool call id from the stream; only runs with callback tools emit it).
 */
const ALWAYS_PUBLISHED = new Set<EventType>([
  'RUN_STARTED',
  'RUN_COMPLETED',
  'RUN_FAILED',
  'RUN_CANCELLED',
  'TOOL_AUTH_REQUIRED',
  'TOOL_AUTH_GRANTED',
  'TOOL_AUTH_DENIED',
  'TOOL_CALLBACK_WAITING',
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
    ...(context.ownLogs && context.depth > 0 ? { ownLog: true as const } : {}),
  };
}

/** The events a nested run with its own log copies to its parent's: its start and its end. */
const copiedToParent = (type: EventDraft['type']) => type === 'RUN_STARTED' || isTerminalType(type);

/**
 * An emitter for a run with its own Wire (appends to `wire`; a nested one copies its start and end to its parent's),
 * or for a nested run of an older tree (signals the root).
 */
export function createEmitter(base: EventBase, wire: Wire | undefined, stream: 'full' | 'none' = 'full'): Emitter {
  let sequence = 0;
  // One publisher per workflow run: a continued-as-new child starts a new sequence under a new id.
  const publisherId = `run:${workflowInfo().runId}`;
  const parent = wire ? (base.ownLog && base.parentRunId) || undefined : base.rootRunId;
  const target = parent === undefined ? undefined : getExternalWorkflowHandle(parent);
  // Signals are sent one at a time: two in flight may be delivered out of order, and the Wire drops a batch
  // whose sequence is not above the last one it applied (parallel tool calls can emit concurrently).
  let delivered: Promise<void> = Promise.resolve();
  return {
    base,
    emit(event, as = base) {
      // `stream: 'none'` (an AgentTool that only reports its start and end) publishes lifecycle and approval events
      // only.
      if (stream === 'none' && !ALWAYS_PUBLISHED.has(event.type)) return Promise.resolve();
      const draft: EventDraft = { ...as, ...event, timestamp: event.timestamp ?? Date.now() };
      if (wire) {
        wire.append(draft);
        // Only the run's own start and end go to its parent (an end reported for a child stays in this log).
        if (!target || as !== base || !copiedToParent(draft.type)) return Promise.resolve();
      }
      const send = () => target!.signal(publishSignal, { publisherId, sequence: sequence++, events: [draft] });
      const sent = delivered.then(send);
      delivered = sent.catch(() => undefined);
      return sent;
    },
  };
}
