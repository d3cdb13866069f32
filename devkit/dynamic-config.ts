// The Temporal server settings every dev server Agio starts runs with (`agio serve`, the tests, the benchmarks), and
// docker-compose's server through deploy/temporal/dynamic-config.yaml: the history service's transfer queue reader
// unthrottled, and eager activity dispatch. Measured one by one with `npm run bench -- SETTINGS`; see
// docs/PERFORMANCE.md ("Temporal server settings").

/**
 * Dynamic config values, by key. A dev server has one history shard, and each queue reader polls its shard at most
 * `…MaxPollRPS` times a second (default 20): every task that goes through the queue waits up to 50 ms for the next
 * permitted read, whatever the load. 1000 reads a second keeps the wait around a millisecond; a reader only polls
 * again while it finds work (or on a new-task notification), so an idle server does not poll more.
 */
export const TUNED_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  // Transfer queue: every activity dispatch and workflow task (and child start, signal to another workflow)
  // passes it. The one that matters: a bare activity round trip fell from 102 ms to 13.9 ms, an Agio step from
  // 50 to 33 ms. (The timer and visibility readers' equivalents were measured too and left at their defaults: a
  // 10 ms workflow timer fired ~995 ms late either way, and a finished run was listed in ~2 ms either way.)
  'history.transferProcessorMaxPollRPS': 1000,
  // Eager activity dispatch: an activity scheduled by a workflow task goes back to the worker in that task's
  // completion, skipping the matching service (the SDK asks for it by default; the server must allow it).
  // Activity round trip 13.8 → 11.3 ms, Agio step 32.5 → 29.6 ms, callModel schedule-to-start ~0 ms.
  'system.enableActivityEagerExecution': true,
};

/**
 * Settings every dev server gets whatever the tuning: search attributes registered at start are usable at once (the
 * server's cache would otherwise hide them for a while), and a namespace may hold many worker deployments: each
 * worker versions under its deployment name (tests and `agio/testing` start one per task queue), and past the
 * default 100 a new worker's polls fail with "reached maximum deployments in namespace (100)" and it never runs a
 * task (seen in a full run of the suite on one dev server).
 */
export const DEV_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  'system.forceSearchAttributesCacheRefreshOnRead': true,
  'matching.maxDeployments': 100_000,
};

/** The settings a dev server runs with: `overrides` on top of the tuned settings (or of Temporal's defaults). */
export function dynamicConfigValues(
  overrides: Record<string, string | number | boolean> = {},
  tuned = true,
): Record<string, string | number | boolean> {
  return { ...DEV_DYNAMIC_CONFIG, ...(tuned ? TUNED_DYNAMIC_CONFIG : {}), ...overrides };
}

/**
 * The settings as a dynamic config file (YAML: each key holds a list of constrained values; one, unconstrained, here).
 */
export function dynamicConfigYaml(values: Record<string, string | number | boolean>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}:\n  - value: ${JSON.stringify(v)}\n`)
    .join('');
}

/** `overrides` on top of the tuned settings (or of Temporal's defaults when `tuned` is false), as
 * `--dynamic-config-value KEY=JSON` arguments of `temporal server start-dev`. */
export function dynamicConfigArgs(overrides: Record<string, string | number | boolean> = {}, tuned = true): string[] {
  return Object.entries(dynamicConfigValues(overrides, tuned)).flatMap(([k, v]) => [
    '--dynamic-config-value',
    `${k}=${JSON.stringify(v)}`,
  ]);
}
