// The approvals inbox's contract (docs/ARCHITECTURE.md, "Approvals"): what a run reports of each call waiting for a
// person (its state query), the binding a decision quotes, and an inbox item as the client and GET /approvals answer
// it.
import type { PermissionRule } from './permissions';

/** What happens when an asked call's approval expires. */
export type ExpiryAction = 'deny' | 'escalate' | 'pause';

/** Arguments up to this many characters of JSON travel whole in the state and the inbox; longer ones are previewed. */
export const INBOX_ARGS_CHARS = 4096;
/** Characters of a long call's arguments (JSON) the preview keeps. */
export const INBOX_ARGS_PREVIEW_CHARS = 2000;

/**
 * A tool call waiting for a person, as the run's state query reports it (fields after `workflowId`: since 0.x inbox).
 */
export interface PendingApproval {
  toolCallId: string;
  tool: string;
  /** The workflow that asked: decisions go there. */
  workflowId: string;
  rootRunId?: string;
  depth?: number;
  /** The call's parsed arguments, when their JSON is at most {@link INBOX_ARGS_CHARS} characters. */
  args?: unknown;
  /** Longer arguments: the head of their JSON, and its length (the whole call is in TOOL_AUTH_REQUIRED). */
  argsPreview?: string;
  argsChars?: number;
  /** Why it asks: the rule's pattern it matched, or that the tool requires approval. */
  reason?: string;
  /** The rule that asked. */
  rule?: PermissionRule;
  /** When it asked (ISO). */
  askedAt?: string;
  /** When its approval expires (ISO), and what happens then; absent while nothing will (a run paused by expiry). */
  expiresAt?: string;
  onExpiry?: ExpiryAction;
  /** Set once escalated: only tokens with this role may decide it, quoting the current binding. */
  escalatedTo?: string;
  /** Its last expiry: what was done and when (ISO). */
  expired?: { action: ExpiryAction; at: string };
  /** What a decision quotes to be bound to this very call in this round (changes when it is escalated). */
  binding?: string;
}

/** One item of a tenant's approvals inbox: a pending call with the run that owns it. */
export interface InboxItem extends PendingApproval {
  /** The run that made the call (its workflow id), its root, and its agent. */
  runId: string;
  rootRunId: string;
  agent: string;
  depth: number;
  /** The owning run is paused (e.g. `approval_expired`). */
  paused?: boolean;
  pauseReason?: string;
}

/** One page of the inbox, oldest ask first. */
export interface Inbox {
  approvals: InboxItem[];
  /** More waiting runs matched than were read (the scan's bound): narrow the filters to see the rest. */
  truncated?: boolean;
  /** Runs visibility listed as waiting that had nothing pending when asked (visibility lags the runs a moment). */
  dropped: number;
  /** Runs listed as waiting whose state did not answer in time (no worker polls their task queue?): not shown. */
  unanswered?: number;
}

/**
 * A call's binding: a 64-bit hash of where and what it is (workflow, execution, the ask's sequence number, call id,
 * tool, arguments), then `.` and its escalation round. Two 32-bit FNV-1a-style passes (Math.imul): cheap enough for
 * megabytes of arguments inside a workflow, and deterministic on every worker.
 */
export function approvalBinding(parts: string[], round: number): string {
  const text = parts.join('\u0000');
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `${hex(a)}${hex(b)}.${round}`;
}
