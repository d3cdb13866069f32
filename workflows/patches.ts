// Changes to what workflow code schedules, each guarded by patched(): a history recorded before a change replays
// the old way, a run started after it takes the new one (see Temporal's "patching" for versioning workflow code).

/** Patch ids, one per change; never reuse or rename one. */
export const Patches = {
  /** Tools that declare themselves quick run as local activities instead of activities. */
  quickToolsAsLocalActivities: 'agio-quick-tools-as-local-activities',
  /** resolveTools runs as a local activity instead of an activity. */
  resolveToolsAsLocalActivity: 'agio-resolve-tools-as-local-activity',
} as const;
