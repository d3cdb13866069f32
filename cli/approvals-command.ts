// `agio approvals`: the tenant's approvals inbox (GET /approvals) as a table, or as JSON with --json; decide an item
// with `agio approve|deny <runId> <callId> --binding <binding>`.
import type { Inbox, InboxItem } from '../common/approval-inbox';
import type { BridgeClient } from './bridge-client';

/** The filters and output of `agio approvals`. */
export interface ApprovalsArgs {
  agent?: string;
  root?: string;
  tool?: string;
  limit?: string;
  json?: boolean;
}

/** How long ago, or until, `iso` is from `now`, as people say it: `42 s`, `5 min`, `3 h`, `2 d`. */
export function span(iso: string | undefined, now: number): string {
  if (!iso) return '-';
  const s = Math.abs(Date.parse(iso) - now) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** What happens to an item and when: `deny in 5 min`, `escalated to lead, deny in 24 h`, `paused`. */
function expiryOf(item: InboxItem, now: number): string {
  const parts = [
    ...(item.escalatedTo ? [`escalated to ${item.escalatedTo}`] : []),
    ...(item.paused ? [`paused${item.pauseReason ? ` (${item.pauseReason})` : ''}`] : []),
    ...(item.expiresAt ? [`${item.onExpiry ?? 'deny'} in ${span(item.expiresAt, now)}`] : []),
  ];
  return parts.join(', ') || '-';
}

/** The inbox as lines of text: one block per call (who asks what, why, its expiry and what to quote). */
export function formatInbox(inbox: Inbox, now = Date.now()): string {
  if (!inbox.approvals.length) return 'No tool call is waiting for a decision.\n';
  const blocks = inbox.approvals.map((item) => {
    const args = item.argsPreview ?? JSON.stringify(item.args ?? {});
    return [
      `${item.tool} by ${item.agent} (${item.depth ? `depth ${item.depth} of ${item.rootRunId}` : 'root'}), asked ${span(item.askedAt, now)} ago`,
      `  run      ${item.runId}`,
      `  call     ${item.toolCallId}`,
      `  args     ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`,
      `  reason   ${item.reason ?? '-'}`,
      `  expiry   ${expiryOf(item, now)}`,
      `  decide   agio approve|deny ${item.runId} ${item.toolCallId} --binding ${item.binding ?? '-'}`,
    ].join('\n');
  });
  const notes = inbox.truncated ? ['(more are waiting: narrow with --agent, --root or --tool)'] : [];
  return `${[...blocks, ...notes].join('\n\n')}\n`;
}

/** Lists the inbox; returns the exit code. */
export async function approvalsCommand(bridge: BridgeClient, args: ApprovalsArgs): Promise<number> {
  const query = new URLSearchParams();
  if (args.agent) query.set('agent', args.agent);
  if (args.root) query.set('rootRunId', args.root);
  if (args.tool) query.set('tool', args.tool);
  if (args.limit) query.set('limit', args.limit);
  const inbox = await bridge.request<Inbox>('GET', `/approvals${query.size ? `?${query}` : ''}`);
  process.stdout.write(args.json ? `${JSON.stringify(inbox, null, 2)}\n` : formatInbox(inbox));
  return 0;
}
