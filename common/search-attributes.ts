// Search attributes: what `GET /runs`, the metrics and the Temporal UI list, count and filter runs by. A dev server
// started by Agio registers them; on any other cluster the worker and the bridge add the missing ones at start-up.
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';

/** What root runs are started with. */
export const RunSearchAttributes = {
  tenant: defineSearchAttributeKey('AgioTenant', SearchAttributeType.KEYWORD),
  agent: defineSearchAttributeKey('AgioAgent', SearchAttributeType.KEYWORD),
  rootRunId: defineSearchAttributeKey('AgioRootRunId', SearchAttributeType.KEYWORD),
} as const;

/**
 * What a run waits on, kept by the run itself (roots and nested runs, started since the patch
 * `agio-waiting-search-attributes`): `approval` while a tool call waits for a person, `callback` while a callback
 * tool call waits for its outside result, `paused:<reason>` while paused
 * (`paused:budget`, else `paused:operator`), and since when it has waited on what it waits on now; absent while it
 * waits on nothing. Any process counts a fleet's waiting runs from visibility with them.
 */
export const WaitingSearchAttributes = {
  waiting: defineSearchAttributeKey('AgioWaiting', SearchAttributeType.KEYWORD_LIST),
  waitingSince: defineSearchAttributeKey('AgioWaitingSince', SearchAttributeType.DATETIME),
  /**
   * The tenant of a run while it waits (roots and nested runs alike, since patch `agio-approval-inbox`), so a tenant's
   * approvals inbox finds its nested runs too: AgioTenant stays on roots only, which listings of runs count.
   */
  waitingTenant: defineSearchAttributeKey('AgioWaitingTenant', SearchAttributeType.KEYWORD),
} as const;

/**
 * A retry's or fork's source run (common/run-origin.ts), on the new root run: the source finds the runs made from it
 * with it (`GET /runs/:id` lists them), since a closed run's own memo can no longer change.
 */
export const OriginSearchAttributes = {
  rescuedFrom: defineSearchAttributeKey('AgioRescuedFrom', SearchAttributeType.KEYWORD),
} as const;

/** Pause reasons AgioWaiting keeps as they are (`paused:budget`); any other is `paused:operator`. */
export const NAMED_PAUSE_REASONS: readonly string[] = ['budget'];

/** Every search attribute Agio uses. */
export const AGIO_SEARCH_ATTRIBUTES = [
  ...Object.values(RunSearchAttributes),
  ...Object.values(WaitingSearchAttributes),
  ...Object.values(OriginSearchAttributes),
];
