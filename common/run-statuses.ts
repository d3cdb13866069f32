// The one status vocabulary of Agio's APIs, as a plain list: the viewer imports it without zod (run-status.ts, which
// maps Temporal's statuses onto it, re-exports it).

/**
 * Where a run is, as every Agio API, event and command says it (lowercase): `running` (a paused run is running; its
 * state says paused) or how it ended. `terminated` and `timed_out` are ends only Temporal knows; `continued_as_new` is
 * an execution a long run left behind (listings show a run once, as its latest execution).
 */
export const RUN_STATUSES = [
  'running',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
  'continued_as_new',
] as const;
/** One of {@link RUN_STATUSES}. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run ended, by its terminal event's type (RUN_COMPLETED → `completed`); undefined for any other type. */
export function statusOfTerminalEvent(type: string): 'completed' | 'failed' | 'cancelled' | undefined {
  return type === 'RUN_COMPLETED'
    ? 'completed'
    : type === 'RUN_FAILED'
      ? 'failed'
      : type === 'RUN_CANCELLED'
        ? 'cancelled'
        : undefined;
}
