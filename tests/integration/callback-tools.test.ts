// Callback tools on a real dev server, worker and bridge (docs/ARCHITECTURE.md, "Callback tools"): a call starts its
// outside work once and waits, holding no activity, for a result sent to its signed URL or through the client; the
// result is taken once, a timeout is a tool error the model reads, and a late, second or forged result is refused.
import { defineAgent, WaitingSearchAttributes } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { CallbackTokens } from '../../platform/callback-tokens';
import { CallbackRefusedError } from '../../client/agio-client';
import { activities, sentToolResult } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { CALLBACK_SECRET, callbackBedOptions, startOf, waitForCallback } from '../helpers/callbacks';
import { eventsNow, readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed, type TestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';
import { Registry } from 'prom-client';
import { WAITING_TTL_MS, waitingMetrics } from '../../telemetry/metrics-waiting';

const agentWith = (name: string, tool: string) =>
  defineAgent({ name, instructions: `You are ${name}.`, tools: [tool] });
const keyOf = (name: string) => `You are ${name}.`;

describe('callback tools', () => {
  const bed: TestBed = useTestBed(callbackBedOptions(() => bed));
  const post = (url: string, body: unknown, headers?: Record<string, string>) => request(url, { body, headers });

  it('waits for the result sent to its URL, takes it once, and shows the wait in the stream, state, search attributes and metrics', async () => {
    const agent = agentWith('deployer', 'deploy');
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([toolCall('deploy', { service: 'web' }, { id: 'call_dep' })]),
      text('deployed'),
    );
    const run = await bed.bridge.agio.start(agent, 'deploy web');
    const waiting = await waitForCallback(bed.client, run.runId, 'call_dep');
    const started = startOf('call_dep');
    expect(started).toMatchObject({ args: { service: 'web' }, runId: run.runId });
    expect(started.url).toBe(`${bed.bridge.url}/callbacks/${started.token}`);
    expect(waiting.data).toMatchObject({ toolCallId: 'call_dep', tool: 'deploy', workflowId: run.runId });
    expect(waiting.data.expiresAt).toBe(started.expiresAt);

    const state = await run.state();
    expect(state.pendingCallbacks).toEqual([
      expect.objectContaining({ toolCallId: 'call_dep', tool: 'deploy', workflowId: run.runId }),
    ]);
    expect(state.runningTools).toEqual(['call_dep']);
    const http = await request(`${bed.bridge.url}/runs/${run.runId}/state`, { token: bed.bridge.token });
    expect(http.body.pendingCallbacks).toHaveLength(1);
    await waitFor('AgioWaiting = callback', async () => {
      const attrs = (await run.workflow.describe()).typedSearchAttributes;
      return attrs.get(WaitingSearchAttributes.waiting)?.join(',') === 'callback';
    });
    // Counted from visibility as Prometheus scrapes (each read a fresh one: the clock passes the figures' TTL).
    const registry = new Registry();
    let clock = Date.now();
    const source = { connection: bed.connection, namespace: 'default', taskQueue: bed.worker.taskQueue };
    waitingMetrics(registry, source, () => (clock += WAITING_TTL_MS + 1));
    await waitFor('agio_callbacks_waiting 1', async () =>
      (await registry.getSingleMetricAsString('agio_callbacks_waiting')).includes('agio_callbacks_waiting 1'),
    );
    // Waiting holds no activity: the start ran once and has finished.
    expect((await run.workflow.describe()).raw.pendingActivities ?? []).toHaveLength(0);

    expect(await post(started.url, { result: { status: 'ok', version: 42 } })).toEqual({
      status: 200,
      body: { completed: true },
    });
    const again = await post(started.url, { result: { status: 'second' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('callback_already_completed');
    expect(JSON.stringify(again.body)).not.toContain(run.runId);

    expect((await run.result()).response).toBe('deployed');
    const [, second] = requestsOf(bed.server, keyOf(agent.name));
    expect(sentToolResult(second, 'call_dep')).toBe('{"status":"ok","version":42}');
    const history = await run.workflow.fetchHistory();
    expect(activities(history, 'startCallbackTool').map((a) => a.completed)).toEqual([true]);
    expect(activities(history, 'runTool')).toEqual([]);
    const events = await readStream(bed.client, run.runId);
    expect(events.filter((e) => e.type === 'TOOL_CALLBACK_WAITING')).toHaveLength(1);
    const steps = events.filter((e) => e.snapshot?.toolCallId === 'call_dep' && e.snapshot.role === 'tool');
    expect(steps.map((e) => e.snapshot?.content)).toEqual(['{"status":"ok","version":42}']);
    const after = (await run.workflow.describe()).typedSearchAttributes.get(WaitingSearchAttributes.waiting);
    expect(after ?? []).toEqual([]);
  });

  it('refuses forged, foreign, expired and malformed callbacks without naming the run, and oversized bodies', async () => {
    const agent = agentWith('guarded', 'deploy');
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([toolCall('deploy', { service: 'db' }, { id: 'call_guard' })]),
      text('done'),
    );
    const run = await bed.bridge.agio.start(agent, 'deploy db');
    await waitForCallback(bed.client, run.runId, 'call_guard');
    const { url, token } = startOf('call_guard');
    const [version, claims, signature] = token.split('.');
    const base = `${bed.bridge.url}/callbacks/`;
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const otherTenant = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), t: 'tenant-b' }),
    ).toString('base64url');
    const foreign = new CallbackTokens('another-secret-0123456789abcdef').mint({
      w: run.runId,
      c: '2',
      t: 'default',
      e: Date.now() + 60_000,
    });
    for (const forged of [
      `${version}.${claims}.${flipped}`,
      `${version}.${otherTenant}.${signature}`,
      foreign,
      'not-a-token',
      `${version}.${claims}`,
    ]) {
      const answer = await post(base + forged, { result: 'forged' });
      expect([forged.slice(0, 20), answer.status, answer.body.error?.code]).toEqual([
        forged.slice(0, 20),
        401,
        'invalid_callback',
      ]);
      expect(JSON.stringify(answer.body)).not.toContain(run.runId);
    }
    const expired = new CallbackTokens(CALLBACK_SECRET).mint({ w: run.runId, c: '2', t: 'default', e: Date.now() - 1 });
    expect((await post(base + expired, { result: 'late' })).status).toBe(410);
    // A token for a callback that does not wait (signed, unexpired): 404, the run untouched.
    const stray = new CallbackTokens(CALLBACK_SECRET).mint({
      w: run.runId,
      c: '99',
      t: 'default',
      e: Date.now() + 60_000,
    });
    expect(await post(base + stray, { result: 'stray' })).toMatchObject({ status: 404 });
    const nowhere = new CallbackTokens(CALLBACK_SECRET).mint({
      w: 'run-nope',
      c: '2',
      t: 'default',
      e: Date.now() + 60_000,
    });
    expect((await post(base + nowhere, { result: 'x' })).status).toBe(410);
    expect((await post(url, { nothing: true })).status).toBe(400);
    expect((await post(url, { result: 'x', error: 'y' })).status).toBe(400);
    expect((await post(url, { result: 'x'.repeat(300 * 1024) })).status).toBe(413);
    expect((await run.state()).pendingCallbacks).toHaveLength(1);

    expect((await post(url, { result: 'the real one' })).status).toBe(200);
    expect((await run.result()).response).toBe('done');
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent.name))[1], 'call_guard')).toBe('the real one');
  });

  it('ends a wait nobody completes with a timeout error the model reads, and refuses the late result', async () => {
    const agent = agentWith('waiter', 'quick_job');
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([toolCall('quick_job', { job: 'lint' }, { id: 'call_late' })]),
      text('it timed out'),
    );
    const run = await bed.bridge.agio.start(agent, 'lint');
    await waitForCallback(bed.client, run.runId, 'call_late');
    const { url, token } = startOf('call_late');
    expect((await run.result()).response).toBe('it timed out');
    const result = sentToolResult(requestsOf(bed.server, keyOf(agent.name))[1], 'call_late');
    expect(result).toMatch(
      /^Error: tool "quick_job" started its work but no result came back within 2.5 s \(reason: timeout\)/,
    );

    const late = await post(url, { result: 'finally' });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('callback_expired');
    await expect(bed.agio.completeCallback(token, { result: 'finally' })).rejects.toMatchObject({
      name: 'CallbackRefusedError',
      reason: 'expired',
    });
  });

  it('refuses a late result while the run still runs, and tells the model when the start was refused', async () => {
    const agent = agentWith('late-while-running', 'quick_job');
    const refusing = defineAgent({ name: 'refusing', instructions: 'You are refusing.', tools: ['refused_job'] });
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([toolCall('quick_job', { job: 'a' }, { id: 'call_a' })]),
      toolCalls([toolCall('quick_job', { job: 'b' }, { id: 'call_b' })]),
      text('two jobs'),
    );
    bed.server.scriptFor(keyOf('refusing'), toolCalls([toolCall('refused_job', {}, { id: 'call_no' })]), text('ok'));
    const run = await bed.bridge.agio.start(agent, 'two jobs');
    await waitForCallback(bed.client, run.runId, 'call_b');
    // call_a timed out before call_b started: the run itself refuses its result (the token has expired too).
    await expect(bed.agio.completeCallback(startOf('call_a').token, { result: 'late a' })).rejects.toMatchObject({
      reason: 'expired',
    });
    await run.completeCallback('call_b', { error: 'job b failed on step 3' });
    await run.result();
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent.name))[2], 'call_b')).toBe(
      'Error: job b failed on step 3',
    );

    const refused = await bed.agio.start(refusing, 'go');
    await refused.result();
    expect(sentToolResult(requestsOf(bed.server, keyOf('refusing'))[1], 'call_no')).toBe(
      'Error: the CI system refused the job: quota exceeded',
    );
  });

  it('counts a run that only waits for its callback as parked when paused, and goes on after the resume', async () => {
    const agent = agentWith('paused-waiter', 'deploy');
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([toolCall('deploy', { service: 'cache' }, { id: 'call_paused' })]),
      text('cache deployed'),
    );
    const run = await bed.agio.start(agent, 'deploy the cache');
    await waitForCallback(bed.client, run.runId, 'call_paused');
    // The pause update answers once the run is parked: a wait for outside work holds nothing.
    expect(await run.pause({ reason: 'maintenance' })).toMatchObject({ paused: true, parked: true });
    await run.completeCallback('call_paused', { result: 'cache is live' });
    await waitFor('the result committed while paused', async () =>
      (await eventsNow(bed.client, run.runId)).some(
        (e) => e.snapshot?.role === 'tool' && e.snapshot.toolCallId === 'call_paused',
      ),
    );
    expect((await run.state()).pendingCallbacks ?? []).toEqual([]);
    expect(requestsOf(bed.server, keyOf(agent.name))).toHaveLength(1);
    await run.resume();
    expect((await run.result()).response).toBe('cache deployed');
  });

  it('is completed through the client by token and by tool call id, once', async () => {
    const agent = agentWith('client-completed', 'deploy');
    bed.server.scriptFor(
      keyOf(agent.name),
      toolCalls([
        toolCall('deploy', { service: 'a' }, { id: 'call_c1' }),
        toolCall('deploy', { service: 'b' }, { id: 'call_c2' }),
      ]),
      text('both deployed'),
    );
    const run = await bed.agio.start(agent, 'deploy both');
    await waitForCallback(bed.client, run.runId, 'call_c1');
    await waitForCallback(bed.client, run.runId, 'call_c2');
    await expect(
      bed.agio.completeCallback(startOf('call_c1').token, { result: 'x'.repeat(1_100_000) }),
    ).rejects.toMatchObject({ reason: 'invalid' });
    expect(await bed.agio.completeCallback(startOf('call_c1').token, { result: 'a is live' })).toEqual({
      toolCallId: 'call_c1',
      tool: 'deploy',
      completed: true,
    });
    await expect(run.completeCallback('call_c1', { result: 'again' })).rejects.toBeInstanceOf(CallbackRefusedError);
    expect(await run.completeCallback('call_c2', { result: { live: true } })).toMatchObject({ toolCallId: 'call_c2' });
    await expect(run.completeCallback('call_zz', { result: 'x' })).rejects.toMatchObject({ reason: 'not_found' });
    await run.result();
    const second = requestsOf(bed.server, keyOf(agent.name))[1];
    expect(sentToolResult(second, 'call_c1')).toBe('a is live');
    expect(sentToolResult(second, 'call_c2')).toBe('{"live":true}');
  });
});
