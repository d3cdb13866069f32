// An asked call's wait for a person with its expiry (docs/ARCHITECTURE.md, "Approvals"): when nobody decided in time
// the rule's `onExpiry` says what happens, deny (as before), escalate to a role, or pause the run, each published as
// TOOL_AUTH_EXPIRED. Runs opened before the patch wait with the plain timeout (approvals.ts).
import { condition, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { ExpiryAction, PendingApproval, PermissionRule } from '../../common';
import { RunSearchAttributes, WaitingSearchAttributes } from '../../common/search-attributes';

/**
 * The patch under which approvals expire with an action, publish TOOL_AUTH_EXPIRED, carry a binding in
 * TOOL_AUTH_REQUIRED, and a run's waiting index also names its tenant (and a nested run its root) for the inbox.
 * Asked once per execution, when the run opens.
 */
export const APPROVAL_INBOX_PATCH = 'agio-approval-inbox';

/** How long an ask waits and what happens then. */
export interface ExpiryPolicy {
  afterMs: number;
  action: ExpiryAction;
  escalateTo?: string;
}

/** The asking rule's expiry, else the agent's approvalTimeoutMs with `deny` (an `escalate` without a role denies). */
export function expiryOf(rule: PermissionRule | undefined, timeoutMs: number): ExpiryPolicy {
  const action = rule?.onExpiry === 'escalate' && !rule.escalateTo ? 'deny' : (rule?.onExpiry ?? 'deny');
  return {
    afterMs: rule?.expiresAfterMs ?? timeoutMs,
    action,
    ...(action === 'escalate' ? { escalateTo: rule!.escalateTo } : {}),
  };
}

/** What {@link waitWithExpiry} does at each expiry (publishing, rebinding, pausing). */
export interface ExpiryHooks {
  /** The call's state as the inbox shows it (updated in place). */
  info: PendingApproval;
  decided(): boolean;
  /** Publishes TOOL_AUTH_EXPIRED with `data`. */
  expired(data: {
    action: ExpiryAction;
    expiredAt: number;
    escalatedTo?: string;
    binding?: string;
    expiresAt?: number;
  }): Promise<void>;
  /** The call's binding in escalation round `round`. */
  rebind(round: number): string;
  /** Pauses the run (reason `approval_expired`). */
  pause(): void;
  /** How long an escalated call waits for its role before it is denied. */
  escalatedWaitMs: number;
}

/**
 * Waits until the call is decided or, after its expiries, denied: resolves `decided` or `expired` (deny). A decision
 * accepted in the same workflow task as the timer counts: its sender was told so.
 */
export async function waitWithExpiry(first: ExpiryPolicy, hooks: ExpiryHooks): Promise<'decided' | 'expired'> {
  const { info } = hooks;
  let policy: ExpiryPolicy | undefined = first;
  let round = 0;
  for (;;) {
    if (!policy) {
      await condition(hooks.decided);
      return 'decided';
    }
    info.expiresAt = new Date(Date.now() + policy.afterMs).toISOString();
    info.onExpiry = policy.action;
    if ((await condition(hooks.decided, policy.afterMs)) || hooks.decided()) return 'decided';
    const expiredAt = Date.now();
    info.expired = { action: policy.action, at: new Date(expiredAt).toISOString() };
    delete info.expiresAt;
    delete info.onExpiry;
    if (policy.action === 'deny') {
      await hooks.expired({ action: 'deny', expiredAt });
      return 'expired';
    }
    if (policy.action === 'escalate') {
      info.escalatedTo = policy.escalateTo;
      info.binding = hooks.rebind(++round);
      const expiresAt = expiredAt + hooks.escalatedWaitMs;
      await hooks.expired({
        action: 'escalate',
        expiredAt,
        escalatedTo: policy.escalateTo,
        binding: info.binding,
        expiresAt,
      });
      policy = { afterMs: hooks.escalatedWaitMs, action: 'deny' };
      continue;
    }
    hooks.pause();
    await hooks.expired({ action: 'pause', expiredAt });
    policy = undefined;
  }
}

/**
 * What the waiting index adds under the patch: AgioWaitingTenant while the run waits (from its memo, which every run
 * has), and on a nested run its root (AgioRootRunId), so the inbox lists and filters a tenant's nested runs too.
 */
export function inboxAttributes(waiting: boolean): SearchAttributeUpdatePair[] {
  const memo = (workflowInfo().memo ?? {}) as { tenant?: unknown; rootRunId?: unknown };
  const tenant = typeof memo.tenant === 'string' ? memo.tenant : undefined;
  const root = typeof memo.rootRunId === 'string' ? memo.rootRunId : undefined;
  return [
    ...(tenant ? [{ key: WaitingSearchAttributes.waitingTenant, value: waiting ? tenant : null }] : []),
    ...(root ? [{ key: RunSearchAttributes.rootRunId, value: root }] : []),
  ];
}
