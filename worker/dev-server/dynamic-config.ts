// The Temporal server settings every dev server Agio starts runs with (`agio serve`, the tests, the benchmarks), and
// docker-compose's server through deploy/temporal/dynamic-config.yaml: the history service's queue readers
// unthrottled, and eager activity dispatch. Measured one by one with `npm run bench -- SETTINGS`; see
// docs/PERFORMANCE.md ("Temporal server settings").

/**
 * Dynamic config values, by key. A dev server has one history shard, and each queue reader polls its shard at most
 * `…MaxPollRPS` times a second (default 20): every task that goes through the queue waits up to 50 ms for the next
 * permitted read, whatever the load. 1000 reads a second keeps the wait under a millisecond; a reader only polls
 * again while it finds work (or on a new-task notification), so an idle server does not poll more.
 */
export const TUNED_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  // Transfer queue: every activity dispatch and workflow task (and child start, signal to another workflow)
  // passes it. The one that matters: a bare activity round trip fell from ~100 ms to ~9 ms.
  'history.transferProcessorMaxPollRPS': 1000,
  // Timer queue: timers, activity and workflow-task timeouts, retry backoffs. A 10 ms workflow timer fired
  // ~50 ms late at the default, so approval timeouts, retry waits and pauses with a timer end when they should.
  'history.timerProcessorMaxPollRPS': 1000,
  // Visibility queue: what `GET /runs` and `agio runs` list. At the default a run started or ended a moment ago
  // showed up ~50 ms later; listing is eventually consistent either way, so this only narrows the gap.
  'history.visibilityProcessorMaxPollRPS': 1000,
  // Eager activity dispatch: an activity scheduled by a workflow task goes back to the worker in that task's
  // completion, skipping the matching service's dispatch (the SDK asks for it by default, the server must allow it).
  'system.enableActivityEagerExecution': true,
};

/** `overrides` on top of the tuned settings (or of Temporal's defaults when `tuned` is false), as
 * `--dynamic-config-value KEY=JSON` arguments of `temporal server start-dev`. */
export function dynamicConfigArgs(overrides: Record<string, string | number | boolean> = {}, tuned = true): string[] {
  return Object.entries({ ...(tuned ? TUNED_DYNAMIC_CONFIG : {}), ...overrides }).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]);
}
