// A run paused while it waits for an approval (docs/ARCHITECTURE.md: "Workflow agents and operator control",
// "Approvals") on a real dev server, worker and bridge: it is parked at once, and it publishes RUN_PAUSED then (with
// who and why; the run.paused webhook goes out) and RUN_RESUMED at resume, once each, whether an operator paused it or
// its approval expired with `onExpiry: pause`, and whether the call was decided while paused or not.
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import type { AgioEvent, PermissionRule } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import { askingAgent, authData, keyOf, recordsOf, waitForAsk, waitForAuth } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { eventsNow, expectWholeStream, readStream, requestsOf, waitForEvent } from '../helpers/nested-runs';
import { replayEveryExecution } from '../helpers/replay';
import { expectParkedIdle } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/workflow-agents';

const OPS = 'ops-token';

/** The position in `events` of each of `marks` (an event type, or a type and a tool call id), in that order. */
function positions(events: AgioEvent[], marks: (string | [string, string])[]): number[] {
  return marks.map((mark) => {
    const [type, callId] = typeof mark === 'string' ? [mark, undefined] : mark;
    return events.findIndex(
      (e) => e.type === type && (callId === undefined || (e.data as { toolCallId?: string })?.toolCallId === callId),
    );
  });
}

/** The RUN_PAUSED / RUN_RESUMED events of a stream, with their data. */
const controlEvents = (events: AgioEvent[]) =>
  events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => [e.type, e.data]);

describe('a run paused while it waits for a person', () => {
  const bed = useTestBed({
    tools: testTools,
    bridge: { tokens: `${OPS}:acme:ops:start+read+decide+control+admin`, webhookAllowPrivate: true },
    workerOptions: { webhooks: { allowPrivate: true, initialIntervalMs: 400, maxIntervalMs: 2000 } },
  });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver?.close());

  it('publishes RUN_PAUSED when paused waiting (and the run.paused webhook), RUN_RESUMED only at resume', async () => {
    const hook = await request(`${bed.bridge.url}/webhooks`, {
      token: OPS,
      body: { url: receiver.url('/paused'), events: ['run.paused'] },
    });
    expect(hook.status).toBe(201);
    receiver.verifyWith('/paused', hook.body.secret as string);
    const agent = askingAgent('waiting-paused');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'after resume' }, { id: 'call_w' })]),
      text('resumed and recorded'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_w');

    expect(await run.pause({ reason: 'change freeze', by: 'ops' })).toEqual({
      paused: true,
      parked: true,
      pausedBy: 'ops',
      pauseReason: 'change freeze',
    });
    // In the stream as soon as the pause answers parked.
    expect(controlEvents(await eventsNow(bed.client, run.runId))).toEqual([
      ['RUN_PAUSED', { reason: 'change freeze', by: 'ops' }],
    ]);
    const [sent] = await waitFor('run.paused received', () => {
      const got = receiver.at('/paused');
      return got.length > 0 && got;
    });
    expect(sent.verified).toBe(true);
    expect(sent.body).toMatchObject({
      type: 'run.paused',
      data: { runId: run.runId, reason: 'change freeze', by: 'ops' },
    });

    // Decided while paused: the run stays paused and parked, and says nothing of a resume.
    await run.approve('call_w', { by: 'alice' });
    await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_w');
    await expectParkedIdle(bed.client, [run.runId]);
    expect(await run.state()).toMatchObject({ paused: true, parked: true, pendingApprovals: [] });
    expect(controlEvents(await eventsNow(bed.client, run.runId))).toHaveLength(1);
    expect(recordsOf(run.runId)).toEqual([]);

    await run.resume({ reason: 'thaw', by: 'ops' });
    expect((await run.result()).response).toBe('resumed and recorded');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['after resume']);
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(controlEvents(events)).toEqual([
      ['RUN_PAUSED', { reason: 'change freeze', by: 'ops' }],
      ['RUN_RESUMED', { reason: 'thaw', by: 'ops' }],
    ]);
    const order = positions(events, [
      ['TOOL_AUTH_REQUIRED', 'call_w'],
      'RUN_PAUSED',
      ['TOOL_AUTH_GRANTED', 'call_w'],
      'RUN_RESUMED',
    ]);
    order.push(events.findIndex((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool'));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(receiver.at('/paused')).toHaveLength(1);
    // The run, with its patch marker, replays.
    expect(await replayEveryExecution(bed.client, run.runId)).toBe(1);
  });

  it('publishes RUN_PAUSED once when a call denied while paused brings the run to a safe point still paused', async () => {
    const agent = askingAgent('waiting-denied');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'never' }, { id: 'call_d' })]),
      text('denied while paused'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_d');
    // Over HTTP: the bridge names the token's identity as who paused.
    const paused = await request(`${bed.bridge.url}/runs/${run.runId}/pause`, {
      token: OPS,
      body: { reason: 'audit' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, parked: true });
    await waitForEvent(bed.client, run.runId, (e) => e.type === 'RUN_PAUSED');

    await run.deny('call_d', { message: 'frozen', by: 'alice' });
    await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_DENIED', 'call_d');
    await expectParkedIdle(bed.client, [run.runId]);
    expect(await run.state()).toMatchObject({ paused: true, parked: true });
    expect(requestsOf(bed.server, keyOf(agent))).toHaveLength(1);

    expect((await request(`${bed.bridge.url}/runs/${run.runId}/resume`, { token: OPS, body: {} })).status).toBe(200);
    expect((await run.result()).response).toBe('denied while paused');
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_d')).toContain('frozen');
    const events = await readStream(bed.client, run.runId);
    expect(controlEvents(events)).toEqual([
      ['RUN_PAUSED', { reason: 'audit', by: 'ops' }],
      ['RUN_RESUMED', { by: 'ops' }],
    ]);
    const order = positions(events, ['RUN_PAUSED', ['TOOL_AUTH_DENIED', 'call_d'], 'RUN_RESUMED']);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('publishes RUN_PAUSED when an approval expires with onExpiry: pause, and RUN_RESUMED at resume', async () => {
    const rules: PermissionRule[] = [{ tool: 'record', action: 'ask', expiresAfterMs: 1000, onExpiry: 'pause' }];
    const agent = askingAgent('waiting-expired', { permissions: rules });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'after expiry' }, { id: 'call_e' })]),
      text('decided after the pause'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something', { tenant: 'acme' });
    expect(authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_EXPIRED', 'call_e')).action).toBe('pause');
    const paused = await waitForEvent(bed.client, run.runId, (e) => e.type === 'RUN_PAUSED');
    expect(paused).toMatchObject({ runId: run.runId, data: { reason: 'approval_expired', by: 'agio' } });
    expect(await run.state()).toMatchObject({ paused: true, parked: true, pauseReason: 'approval_expired' });

    // Resumed while the call still waits: RUN_RESUMED now, and the call is decided later.
    await run.resume({ reason: 'someone will answer', by: 'ops' });
    await waitForEvent(bed.client, run.runId, (e) => e.type === 'RUN_RESUMED');
    expect(await run.state()).toMatchObject({ paused: false, pendingApprovals: [{ toolCallId: 'call_e' }] });
    await run.approve('call_e', { by: 'alice' });
    expect((await run.result()).response).toBe('decided after the pause');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['after expiry']);

    const events = await readStream(bed.client, run.runId);
    expect(controlEvents(events)).toEqual([
      ['RUN_PAUSED', { reason: 'approval_expired', by: 'agio' }],
      ['RUN_RESUMED', { reason: 'someone will answer', by: 'ops' }],
    ]);
    const order = positions(events, [
      ['TOOL_AUTH_EXPIRED', 'call_e'],
      'RUN_PAUSED',
      'RUN_RESUMED',
      ['TOOL_AUTH_GRANTED', 'call_e'],
    ]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(await replayEveryExecution(bed.client, run.runId)).toBe(1);
  });
});
