// The event types a run's stream can carry, as a plain list: zod-free, so the browser viewer imports it without
// bundling zod (common/events.ts builds the EventType schema from it).
export const EVENT_TYPES = [
  'RUN_STARTED',
  'STEP_DELTA',
  'STEP_COMPLETED',
  'RUN_COMPLETED',
  'RUN_FAILED',
  'RUN_CANCELLED',
  'RUN_PAUSED',
  'RUN_RESUMED',
  'AGENT_STATE',
  'TOOL_AUTH_REQUIRED',
  'TOOL_AUTH_GRANTED',
  'TOOL_AUTH_DENIED',
  'TOOL_AUTH_EXPIRED',
  'TOOL_CALLBACK_WAITING',
  'USER_MESSAGE',
  'STEP_RETRY',
  'MODEL_UNAVAILABLE',
  'CONTEXT_COMPACTED',
  'CONTEXT_CONDENSED',
  'ERROR',
] as const;

/** True for the event types this release knows; a log may also hold a newer release's, kept as they are. */
export function isKnownEventType(type: string): type is (typeof EVENT_TYPES)[number] {
  return (EVENT_TYPES as readonly string[]).includes(type);
}
