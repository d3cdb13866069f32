// Per-tenant quotas at the bridge: a tenant at its running-runs quota gets 429 with Retry-After for another start, and
// one at its open-streams quota gets 429 for another stream (bearer or stream token; resuming from an old offset opens
// no reader past the cap), while other tenants go on; a freed slot admits again.
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { request, streamStats } from '../helpers/bridge';
import { openRawSse, type RawSse } from '../helpers/raw-sse';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'quota-token';
const OTHER = 'other-token';
const STREAMER = 'streamer-token';
const holder = askingAgent('quota-holder');

describe('per-tenant quotas', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [holder],
    bridge: {
      tokens: `${TOKEN}:crowded,${OTHER}:calm,${STREAMER}:streamer`,
      maxRunningRunsPerTenant: 1,
      maxStreamsPerTenant: 2,
    },
  });
  const start = (token: string, key?: string) =>
    fetch(`${bed.bridge.url}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify({ agent: 'quota-holder', input: 'hold on' }),
    });
  const holdOne = async (token: string, callId: string, key?: string) => {
    bed.server.scriptFor(keyOf(holder), toolCalls([toolCall('record', { label: 'x' }, { id: callId })]));
    const res = await start(token, key);
    expect(res.status).toBe(201);
    const { runId } = (await res.json()) as { runId: string };
    await waitForAsk(bed.client, runId, callId);
    return runId;
  };

  // Started past the bridge, so the running-runs quota stays out of the way.
  const holdDirect = async (tenant: string, callId: string) => {
    bed.server.scriptFor(keyOf(holder), toolCalls([toolCall('record', { label: 'x' }, { id: callId })]));
    const { runId } = await bed.agio.start(holder, 'hold on', { tenant });
    await waitForAsk(bed.client, runId, callId);
    return runId;
  };

  it('answers 429 with Retry-After to a start past the running-runs quota, and admits again once a run ends', async () => {
    const held = await holdOne(TOKEN, 'call_q1', 'held-key');

    // At once (the count the first start left) and once visibility counts the run itself.
    for (const when of ['now', 'counted']) {
      if (when === 'counted')
        await waitFor(
          'visibility counts the run',
          async () => (await bed.agio.count({ tenant: 'crowded', status: 'running' })) === 1,
        );
      const refused = await start(TOKEN);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({
        error: { code: 'quota_exceeded', quota: 'maxRunningRunsPerTenant', max: 1 },
      });
    }
    // A repeat of the start that made the held run still gets its run.
    const repeat = await start(TOKEN, 'held-key');
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await repeat.json()).toMatchObject({ runId: held });
    // Another tenant is not affected.
    const calm = await holdOne(OTHER, 'call_q2');
    await bed.agio.getHandle(calm).cancel();

    await bed.agio.getHandle(held).cancel();
    // Admitted again once the bridge's count (trusted for 2 s) sees the run closed.
    bed.server.scriptFor(keyOf(holder), toolCalls([toolCall('record', { label: 'x' }, { id: 'call_q3' })]));
    const admitted = await waitFor('a start is admitted again', async () => {
      const res = await start(TOKEN);
      return res.status === 201 ? ((await res.json()) as { runId: string }) : undefined;
    });
    await waitForAsk(bed.client, admitted.runId, 'call_q3');
    await bed.agio.getHandle(admitted.runId).cancel();
  });

  it('answers 429 with Retry-After to a stream past the open-streams quota, old offsets included, and admits once one closes', async () => {
    const live = await holdDirect('streamer', 'call_s');
    const events = `${bed.bridge.url}/runs/${encodeURIComponent(live)}/events`;
    const readersBefore = (await streamStats(bed.bridge)).activeReaders;

    // Each resumes from another old offset, which would start a reader of its own.
    const open: RawSse[] = [
      await openRawSse(`${events}?after=-1`, STREAMER),
      await openRawSse(`${events}?after=0`, STREAMER),
    ];
    expect(open.map((s) => s.status)).toEqual([200, 200]);
    await Promise.all(open.map((s) => s.waitForText('TOOL_AUTH_REQUIRED')));
    for (let i = 0; i < 5; i++) {
      const refused = await fetch(`${events}?after=-1`, { headers: { authorization: `Bearer ${STREAMER}` } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({
        error: { code: 'quota_exceeded', quota: 'maxStreamsPerTenant', max: 2 },
      });
    }
    const minted = await request(`${bed.bridge.url}/runs/${encodeURIComponent(live)}/stream-token`, {
      token: STREAMER,
      body: {},
    });
    expect((await fetch(`${bed.bridge.url}${minted.body.events}`)).status).toBe(429);
    // Another tenant still streams.
    const calm = await holdDirect('calm', 'call_s3');
    const calmStream = await openRawSse(`${bed.bridge.url}/runs/${encodeURIComponent(calm)}/events`, OTHER);
    expect(calmStream.status).toBe(200);
    calmStream.close();
    await bed.agio.getHandle(calm).cancel();
    expect((await streamStats(bed.bridge)).activeReaders - readersBefore).toBeLessThanOrEqual(2);

    // A stream closed by its client frees its slot.
    open[0].close();
    const reopened = await waitFor('a slot frees', async () => {
      const s = await openRawSse(`${events}?after=-1`, STREAMER);
      if (s.status === 200) return s;
      s.close();
      return undefined;
    });
    open.push(reopened);
    for (const s of open) s.close();
    await bed.agio.getHandle(live).cancel();
  });
});
