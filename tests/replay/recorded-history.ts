// Reading a recorded history (the JSON `historyToJSON` writes): the few facts the replay tests check before replaying,
// so a fixture that no longer shows the path it was recorded for fails by name rather than passing vacuously.

/** The parts of a recorded history's events the tests read. */
export interface RecordedHistory {
  events: {
    eventId?: string;
    eventType?: string;
    markerRecordedEventAttributes?: {
      markerName?: string;
      details?: Record<string, { payloads?: { data?: unknown }[] }>;
    };
    workflowExecutionStartedEventAttributes?: StartedAttributes;
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
    startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string };
    signalExternalWorkflowExecutionInitiatedEventAttributes?: {
      signalName?: string;
      workflowExecution?: { workflowId?: string };
    };
  }[];
}

/** What a run's first event says about where it came from. */
export interface StartedAttributes {
  workflowType?: { name?: string };
  originalExecutionRunId?: string;
  continuedExecutionRunId?: string;
  parentWorkflowExecution?: { workflowId?: string; runId?: string };
  parentInitiatedEventId?: string;
}

export const startedAttributes = (h: RecordedHistory): StartedAttributes =>
  h.events[0].workflowExecutionStartedEventAttributes ?? {};
export const workflowType = (h: RecordedHistory) => startedAttributes(h).workflowType?.name;
export const childIds = (h: RecordedHistory) =>
  h.events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
export const activityTypes = (h: RecordedHistory) =>
  h.events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
/** Event types without Temporal's `EVENT_TYPE_` prefix, e.g. `WORKFLOW_EXECUTION_SIGNALED`. */
export const eventTypes = (h: RecordedHistory) => h.events.map((e) => (e.eventType ?? '').replace(/^EVENT_TYPE_/, ''));
/** The last event's type: how the run closed (`WORKFLOW_EXECUTION_COMPLETED`, `…_CONTINUED_AS_NEW`, …). */
export const closingEvent = (h: RecordedHistory) => eventTypes(h)[h.events.length - 1];
/** `[signal name, target workflow id]` of every signal the run sent to another workflow. */
export const signalsSent = (h: RecordedHistory): [string, string][] =>
  h.events.flatMap((e) => {
    const attrs = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
    return attrs ? [[attrs.signalName ?? '', attrs.workflowExecution?.workflowId ?? '']] : [];
  });

const decode = <T>(data: unknown): T => JSON.parse(Buffer.from(data as string, 'base64').toString('utf8')) as T;

/** The patches a history recorded, in order. */
export const patchIds = (h: RecordedHistory): string[] =>
  h.events.flatMap((e) => {
    const attrs = e.markerRecordedEventAttributes;
    if (attrs?.markerName !== 'core_patch') return [];
    return [decode<{ id: string }>(attrs.details?.['patch-data']?.payloads?.[0]?.data).id];
  });

/** The types of the local activities a history recorded, in order. */
export const localActivityTypes = (h: RecordedHistory): string[] =>
  h.events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return data ? [decode<{ activity_type: string }>(data).activity_type] : [];
  });
