// Pure parts of webhooks: which Wire events become which webhook events (once per event: a nested run's copies in
// its parent's log are skipped), their stable ids and bounded bodies, which subscriptions take them, the address
// policy, and the worker's settings from options over the environment.
import type { WireEvent } from '../../common';
import { isForbiddenAddress } from '../../platform/address-policy';
import {
  MAX_WEBHOOK_TEXT_CHARS,
  subscriptionTakes,
  webhookDeliveryId,
  webhookEventId,
  webhookEventOf,
} from '../../activities/webhooks/events';
import { parseDurationMs, webhookSettings } from '../../activities/webhooks/settings';
import type { WebhookSubscription } from '../../stores/webhooks';

const event = (fields: Partial<WireEvent>): WireEvent => ({
  type: 'RUN_COMPLETED',
  runId: 'run-1',
  rootRunId: 'run-1',
  agent: 'coder',
  depth: 0,
  offset: 7,
  timestamp: Date.UTC(2026, 10, 26),
  ...fields,
});

const sub = (fields: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
  id: 'whk_1',
  tenant: 't',
  url: 'https://example.test/',
  events: ['run.completed', 'approval.requested'],
  secret: 'whsec_x',
  createdAt: 0,
  ...fields,
});

describe('webhook events', () => {
  it('maps the six Wire types and no other, with an id from the log and the offset', () => {
    const types = {
      RUN_COMPLETED: 'run.completed',
      RUN_FAILED: 'run.failed',
      RUN_CANCELLED: 'run.cancelled',
      RUN_PAUSED: 'run.paused',
      TOOL_AUTH_REQUIRED: 'approval.requested',
      TOOL_AUTH_EXPIRED: 'approval.expired',
    };
    for (const [wire, hook] of Object.entries(types))
      expect(webhookEventOf('run-1', event({ type: wire }))?.type).toBe(hook);
    for (const wire of ['RUN_STARTED', 'STEP_COMPLETED', 'TOOL_AUTH_GRANTED', 'RUN_RESUMED', 'SOMETHING_NEW'])
      expect(webhookEventOf('run-1', event({ type: wire }))).toBeUndefined();
    const once = webhookEventOf('run-1', event({}));
    expect(once?.id).toBe(webhookEventOf('run-1', event({ timestamp: 1 }))?.id);
    expect(once?.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(webhookEventId('run-1', 8)).not.toBe(once?.id);
    expect(webhookEventId('run-2', 7)).not.toBe(once?.id);
    expect(webhookDeliveryId('whk_1', once!.id)).toBe(webhookDeliveryId('whk_1', once!.id));
    expect(webhookDeliveryId('whk_2', once!.id)).not.toBe(webhookDeliveryId('whk_1', once!.id));
  });

  it("sends a nested run's event from its own log, not from the copy its parent's log holds", () => {
    const child = event({ runId: 'run-1/tool/1-a', depth: 1, parentRunId: 'run-1', ownLog: true });
    expect(webhookEventOf('run-1', child)).toBeUndefined();
    expect(webhookEventOf('run-1/tool/1-a', child)?.type).toBe('run.completed');
    // Older trees: nested events live in the root's log only.
    expect(webhookEventOf('run-1', event({ runId: 'run-1/tool/1-a', depth: 1 }))?.type).toBe('run.completed');
  });

  it('writes {type, timestamp, data} with the run and each type’s fields, long texts cut', () => {
    const long = 'x'.repeat(MAX_WEBHOOK_TEXT_CHARS + 5);
    const body = JSON.parse(
      webhookEventOf('run-1', event({ data: { response: long, terminationReason: 'final' } }))!.body,
    );
    expect(body).toEqual({
      type: 'run.completed',
      timestamp: '2026-11-26T00:00:00.000Z',
      data: {
        runId: 'run-1',
        rootRunId: 'run-1',
        agent: 'coder',
        depth: 0,
        status: 'completed',
        response: long.slice(0, MAX_WEBHOOK_TEXT_CHARS),
        responseTruncated: true,
        terminationReason: 'final',
      },
    });
    const paused = webhookEventOf('run-1', event({ type: 'RUN_PAUSED', data: { reason: 'budget', by: 'agio' } }));
    expect(JSON.parse(paused!.body).data).toMatchObject({ reason: 'budget', by: 'agio' });
    const ask = { toolCallId: 'c', tool: 'bash', workflowId: 'run-1', args: { cmd: 'ls' }, reason: 'asks' };
    const asked = webhookEventOf('run-1', event({ type: 'TOOL_AUTH_REQUIRED', data: ask }));
    expect(JSON.parse(asked!.body).data).toMatchObject(ask);
  });

  it('takes an event for a subscription by type, tree, agent, and nested runs only when asked (approvals always)', () => {
    const of = (e: WireEvent) => webhookEventOf(e.ownLog ? e.runId : e.rootRunId, e)!;
    const root = event({});
    const nested = event({ runId: 'run-1/tool/1-a', depth: 1, ownLog: true });
    const nestedAsk = event({ type: 'TOOL_AUTH_REQUIRED', runId: 'run-1/tool/1-a', depth: 1, ownLog: true });
    expect(subscriptionTakes(sub(), of(root), root)).toBe(true);
    expect(subscriptionTakes(sub({ events: ['run.failed'] }), of(root), root)).toBe(false);
    expect(subscriptionTakes(sub({ rootRunId: 'run-2' }), of(root), root)).toBe(false);
    expect(subscriptionTakes(sub({ agent: 'writer' }), of(root), root)).toBe(false);
    expect(subscriptionTakes(sub({ agent: 'coder' }), of(root), root)).toBe(true);
    expect(subscriptionTakes(sub(), of(nested), nested)).toBe(false);
    expect(subscriptionTakes(sub({ includeNested: true }), of(nested), nested)).toBe(true);
    expect(subscriptionTakes(sub(), of(nestedAsk), nestedAsk)).toBe(true);
  });
});

describe('webhook address policy', () => {
  it('forbids loopback, private, link-local, shared, reserved and multicast addresses, v4 inside v6 too', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'fe80::1',
      'fd12::1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not-an-ip',
    ])
      expect([a, isForbiddenAddress(a)]).toEqual([a, true]);
    for (const a of ['203.0.114.9', '8.8.8.8', '172.32.0.1', '2606:4700::1111'])
      expect([a, isForbiddenAddress(a)]).toEqual([a, false]);
  });
});

describe('webhook settings', () => {
  it('reads durations with units and takes options over the environment over the defaults', () => {
    expect(parseDurationMs('X', '250')).toBe(250);
    expect(parseDurationMs('X', '30s')).toBe(30_000);
    expect(parseDurationMs('X', '1.5h')).toBe(5_400_000);
    expect(parseDurationMs('X', '3d')).toBe(259_200_000);
    expect(parseDurationMs('X', '')).toBeUndefined();
    expect(() => parseDurationMs('AGIO_WEBHOOK_RETRY_WINDOW', 'soon')).toThrow(/AGIO_WEBHOOK_RETRY_WINDOW/);
    expect(webhookSettings('q', {}, {})).toEqual({
      taskQueue: 'q-webhooks',
      retryWindowMs: 72 * 3_600_000,
      initialIntervalMs: 5000,
      maxIntervalMs: 3_600_000,
      attemptTimeoutMs: 10_000,
      concurrency: 50,
      allowPrivate: false,
    });
    const env = { AGIO_WEBHOOK_RETRY_WINDOW: '24h', AGIO_WEBHOOK_ALLOW_PRIVATE: '1', AGIO_WEBHOOK_TIMEOUT: '2s' };
    expect(webhookSettings('q', { attemptTimeoutMs: 500 }, env)).toMatchObject({
      retryWindowMs: 86_400_000,
      attemptTimeoutMs: 500,
      allowPrivate: true,
    });
  });
});
