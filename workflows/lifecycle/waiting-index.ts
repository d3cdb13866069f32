// What a run waits on, kept in its search attributes (AgioWaiting, AgioWaitingSince: common/search-attributes.ts), so
// any process counts and lists a fleet's waiting runs from visibility: no worker has to have seen the wait begin.
import { CancellationScope, condition, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ControlState } from '../../common/messages';
import { NAMED_PAUSE_REASONS, WaitingSearchAttributes } from '../../common/search-attributes';
import { APPROVAL_INBOX_PATCH, inboxAttributes } from './approval-expiry';

/** The patch under which a run keeps AgioWaiting and AgioWaitingSince (asked once per execution, when it opens). */
export const WAITING_ATTRIBUTES_PATCH = 'agio-waiting-search-attributes';

/** What a run waits on now, as AgioWaiting's values (none once it has finished). */
export function waitingOn(state: WaitingCounts): string[] {
  if (state.finished) return [];
  const reason = state.pauseReason && NAMED_PAUSE_REASONS.includes(state.pauseReason) ? state.pauseReason : 'operator';
  return [
    ...(state.pendingApprovals > 0 ? ['approval'] : []),
    // Only runs with a callback tool call (CALLBACK_TOOLS_PATCH) ever wait on one.
    ...((state.pendingCallbacks ?? 0) > 0 ? ['callback'] : []),
    ...(state.paused ? [`paused:${reason}`] : []),
  ];
}

/** What the index reads: the control state, and how many approvals and callbacks wait. */
export type WaitingCounts = ControlState & { pendingApprovals: number; pendingCallbacks?: number };

/**
 * Keeps the run's waiting attributes in step with `read()` (one upsert per change, none while nothing changes).
 * AgioWaitingSince is when the run began to wait on anything, kept while it waits on something. What the previous
 * execution set is carried across continue-as-new, so a run that continues as new while waiting keeps its `since`.
 */
export function indexWaiting(read: () => WaitingCounts): void {
  if (!patched(WAITING_ATTRIBUTES_PATCH)) return;
  const attributes = workflowInfo().typedSearchAttributes;
  let reported = (attributes.get(WaitingSearchAttributes.waiting) ?? []).join(',');
  let since = attributes.get(WaitingSearchAttributes.waitingSince);
  const now = () => waitingOn(read());
  const owner = patched(APPROVAL_INBOX_PATCH) ? inboxAttributes : () => [];
  // Not cancellable: a cancelled run still clears what it waited on as it ends (and its wait for a change is never
  // rejected with the run's cancellation, which would fail the workflow task as an unhandled rejection).
  void CancellationScope.nonCancellable(async () => {
    for (;;) {
      await condition(() => now().join(',') !== reported);
      const waiting = now();
      reported = waiting.join(',');
      since = waiting.length ? (since ?? new Date()) : undefined;
      upsertSearchAttributes([
        { key: WaitingSearchAttributes.waiting, value: waiting.length ? waiting : null },
        { key: WaitingSearchAttributes.waitingSince, value: since ?? null },
        ...owner(waiting.length > 0),
      ]);
    }
  });
}
