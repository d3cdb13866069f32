// The event types of a run's stream, as SSE `event:` names the viewer listens for. A copy of common/events.ts'
// EventType list (importing it would bundle zod); a unit test keeps the two equal.
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
  'STEP_RETRY',
  'MODEL_UNAVAILABLE',
  'CONTEXT_COMPACTED',
  'ERROR',
] as const;
