// Which Wire events become webhook events, with what id and body (docs/ARCHITECTURE.md, "Webhooks"). Pure: the
// enqueuer (enqueue.ts) calls it for every event a run's log is written with.
import { createHash } from 'node:crypto';
import { logOwnerOf, type WireEvent } from '../../common';
import type { WebhookEvent, WebhookEventType } from '../../common/webhooks';
import type { WebhookSubscription } from '../../stores/webhooks';

/** The Wire event type each webhook event comes from. */
const TYPES: Readonly<Record<string, WebhookEventType>> = {
  RUN_COMPLETED: 'run.completed',
  RUN_FAILED: 'run.failed',
  RUN_CANCELLED: 'run.cancelled',
  RUN_PAUSED: 'run.paused',
  TOOL_AUTH_REQUIRED: 'approval.requested',
  TOOL_AUTH_EXPIRED: 'approval.expired',
};

/** Longest text (a run's answer, an approval's arguments as JSON) a body carries; longer ones are cut and marked. */
export const MAX_WEBHOOK_TEXT_CHARS = 16 * 1024;

/**
 * The id of the event at `offset` in the log `logId`: the same whichever write of the log (a retried activity, a
 * replay) sees it, so a receiver can drop repeats by `webhook-id`.
 */
export function webhookEventId(logId: string, offset: number): string {
  return `evt_${createHash('sha256').update(`${logId}#${offset}`).digest('hex').slice(0, 32)}`;
}

/** True for a Wire event type some webhook event comes from (the enqueuer reads subscriptions only then). */
export const isWebhookSource = (type: string): boolean => type in TYPES;

/**
 * The webhook event of a Wire event written to the log `logId`, or undefined: not a type webhooks carry, or a copy of
 * a nested run's event its parent's log holds (the nested run's own log sends it).
 */
export function webhookEventOf(logId: string, event: WireEvent): WebhookEvent | undefined {
  const type = TYPES[event.type];
  if (!type || logOwnerOf(event) !== logId || event.offset < 0) return undefined;
  const data = event.data ?? {};
  const run = {
    runId: event.runId,
    rootRunId: event.rootRunId,
    ...(event.parentRunId ? { parentRunId: event.parentRunId } : {}),
    agent: event.agent,
    depth: event.depth,
  };
  const body = { type, timestamp: new Date(event.timestamp).toISOString(), data: { ...run, ...dataOf(type, data) } };
  return { id: webhookEventId(logId, event.offset), type, runId: event.runId, body: JSON.stringify(body) };
}

/** The fields of each type's `data` besides the run's. */
function dataOf(type: WebhookEventType, data: Record<string, unknown>): Record<string, unknown> {
  const pick = (...keys: string[]) =>
    Object.fromEntries(keys.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
  switch (type) {
    case 'run.completed':
      return { status: 'completed', ...cut('response', data.response), ...pick('terminationReason', 'status') };
    case 'run.failed':
      return { status: 'failed', ...pick('error', 'status') };
    case 'run.cancelled':
      return { status: 'cancelled', ...pick('error') };
    case 'run.paused':
      return pick('reason', 'by', 'budget');
    case 'approval.requested': {
      const args = JSON.stringify(data.args ?? null);
      const fits = args.length <= MAX_WEBHOOK_TEXT_CHARS;
      return {
        ...pick('toolCallId', 'tool', 'workflowId', 'reason'),
        ...(fits ? { args: data.args } : cut('args', args)),
      };
    }
    case 'approval.expired':
      return pick('toolCallId', 'tool', 'workflowId', 'action', 'escalatedTo', 'expiredAt');
  }
}

/** `{ [key]: text }`, cut to {@link MAX_WEBHOOK_TEXT_CHARS} with `<key>Truncated: true` when longer. */
function cut(key: string, text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  if (text.length <= MAX_WEBHOOK_TEXT_CHARS) return { [key]: text };
  return { [key]: text.slice(0, MAX_WEBHOOK_TEXT_CHARS), [`${key}Truncated`]: true };
}

/** Whether a subscription takes an event: its types, its agent, and nested runs' run.* events only when it asks. */
export function subscriptionTakes(sub: WebhookSubscription, event: WebhookEvent, source: WireEvent): boolean {
  if (!sub.events.includes(event.type)) return false;
  if (sub.rootRunId !== undefined && sub.rootRunId !== source.rootRunId) return false;
  if (sub.agent !== undefined && sub.agent !== source.agent) return false;
  return source.depth === 0 || sub.includeNested === true || event.type.startsWith('approval.');
}

/** A delivery's id: one per subscription and event (`series` apart for each resend). */
export function webhookDeliveryId(subscriptionId: string, eventId: string, series = ''): string {
  return `dlv_${createHash('sha256').update(`${subscriptionId}#${eventId}#${series}`).digest('hex').slice(0, 32)}`;
}
