// A real Prometheus (Debian's package) scrapes a worker process's /metrics (AGIO_METRICS_PORT's listener, with the
// Temporal SDK's metrics) and a bridge's (an admin token), while runs make model calls, retry a failing provider, fail
// a tool, wait for an approval and are streamed; the test asks Prometheus for the series. deploy/'s alert rules pass
// promtool and evaluate, and every metric they and the Grafana dashboard name is in a live scrape.
import fs from 'node:fs';
import path from 'node:path';
import type { ConnectionLike } from '@temporalio/client';
import { defineAgent } from '../../common';
import { workerMetrics } from '../../telemetry/metrics-worker';
import { freePort } from '../../devkit/free-port';
import { promtool, startPrometheus, type PrometheusServer } from '../../devkit/prometheus-server';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { liveLaneFromEnv } from '../../config/live-lane';
import { startBridge, request, type TestBridge } from '../helpers/bridge';
import { openRawSse, type RawSse } from '../helpers/raw-sse';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { startTestWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { waitFor } from '../helpers/workflow-agents';
import { uniqueId } from '../helpers/temporal';

const DEPLOY = path.resolve(__dirname, '../../deploy');
const RULES = path.join(DEPLOY, 'prometheus/agio-alerts.yml');
const DASHBOARD = path.join(DEPLOY, 'grafana/agio-dashboard.json');
const ADMIN = 'ops-token';
const READER = 'reader-token';

// gpt-4o has a default price (2.5 and 10 USD per million input and output tokens); `house-model` has none.
const priced = defineAgent({
  name: 'metrics-priced',
  instructions: 'You are priced.',
  model: 'gpt-4o',
  tools: ['explode'],
});
const asking = defineAgent({
  name: 'metrics-asking',
  instructions: 'You are asking.',
  model: 'house-model',
  tools: ['record'],
  permissions: [{ tool: 'record', action: 'ask' }],
});
// pausing: its tool call's answer is held until the run has been asked to pause, so it parks right after the tool.
const pausing = defineAgent({
  name: 'metrics-pausing',
  instructions: 'You are pausing.',
  model: 'house-model',
  tools: ['record'],
});
const usage = { prompt_tokens: 1000, completion_tokens: 100 };

/** What a fresh worker's metrics say of a task queue's waiting runs (waiting for approval, paused by an operator). */
async function fleetWaiting(connection: ConnectionLike, namespace: string, taskQueue: string) {
  const metrics = workerMetrics({ processMetrics: false });
  metrics.useVisibility({ connection, namespace, taskQueue, agents: () => [] });
  const text = await metrics.registry.metrics();
  const read = (series: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${series} `))
        ?.split(' ')[1],
    );
  return { approvals: read('agio_approvals_waiting'), paused: read('agio_runs_paused{reason="operator"}') };
}

describe('Prometheus scrapes the worker and the bridge', () => {
  const bed = useTestBed({ worker: false });
  let worker: WorkerProcess | undefined;
  let bridge: TestBridge;
  let prometheus: PrometheusServer;
  let closeLane: (() => Promise<void>) | undefined;
  let stream: RawSse | undefined;
  let workerMetricsUrl: string;
  const ids: Record<string, string> = {};
  // Waiting runs are counted from visibility, for the worker's task queue: other test files' runs (some running at
  // the same time, in the same namespace) are not counted.
  const taskQueue = uniqueId('metrics');

  beforeAll(async () => {
    const port = await freePort();
    workerMetricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = await startTestWorkerProcess({
      taskQueue,
      model: { ...bed.model(), defaultModel: 'gpt-4o' },
      tools: ['record', 'explode'],
      natsUrl: testEnv('natsUrl'),
      metrics: { port, agents: [priced.name, asking.name] },
    });
    const lane = await liveLaneFromEnv({ AGIO_NATS_URL: testEnv('natsUrl') });
    closeLane = lane.close;
    bridge = await startBridge({
      client: bed.client,
      taskQueue,
      agents: [priced, asking, pausing],
      liveLane: lane.lane!,
      tokens: `${ADMIN}:default:ops:read+admin,${READER}:default`,
      maxStreamsPerTenant: 1,
    });
    prometheus = await startPrometheus(
      [
        { job: 'agio-worker', url: workerMetricsUrl },
        { job: 'agio-bridge', url: `${bridge.url}/metrics`, bearerToken: ADMIN },
      ],
      [RULES],
    );
  }, 90_000);
  afterAll(async () => {
    stream?.close();
    await prometheus?.stop();
    await bridge?.close();
    await stopWorkerProcess(worker);
    await closeLane?.();
  });

  /** The value of an instant query's only series, once `ok` holds for it. */
  const valueOf = (promql: string, ok: (v: number) => boolean = (v) => v > 0) =>
    waitFor(
      `Prometheus: ${promql}`,
      async () => {
        const result = await prometheus.query(promql);
        const v = result.length === 1 ? Number(result[0].value[1]) : NaN;
        return ok(v) ? { v } : undefined;
      },
      30_000,
    ).then(({ v }) => v);

  const start = async (agent: string, input: string) => {
    const res = await request(`${bridge.url}/runs`, { token: ADMIN, body: { agent, input } });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };

  it('has model calls, tokens, cost, retries, tool errors, a waiting approval, a paused run and an open stream', async () => {
    // priced: a 503 twice (retried), then a call of `explode` (a tool error), then an answer.
    bed.server.scriptFor(
      'You are priced.',
      { error: { status: 503 } },
      { error: { status: 503 } },
      toolCalls([toolCall('explode', { message: 'boom' })], { usage }),
      text('done', { usage }),
    );
    // asking: a `record` call that waits for approval; the run is streamed meanwhile.
    bed.server.scriptFor('You are asking.', toolCalls([toolCall('record', { label: 'x' })], { usage }));
    const pricedRun = await start(priced.name, 'go');
    const askingRun = (ids.asking = await start(asking.name, 'go'));
    stream = await openRawSse(`${bridge.url}/runs/${encodeURIComponent(askingRun)}/events`, ADMIN);
    await stream.waitForText('TOOL_AUTH_REQUIRED');
    await bridge.agio.getHandle(pricedRun).result();

    const model = (name: string) => `gen_ai_request_model="${name}"`;
    expect(
      await valueOf(`sum(gen_ai_client_operation_duration_seconds_count{${model('gpt-4o')}})`, (v) => v >= 4),
    ).toBe(4);
    expect(await valueOf(`sum(agio_model_retries_total{error_type="ModelServerError"})`)).toBe(2);
    expect(await valueOf(`sum(agio_model_tokens_total{type="input"})`, (v) => v >= 3000)).toBe(3000);
    expect(await valueOf(`sum(gen_ai_client_token_usage_sum{gen_ai_token_type="output",${model('gpt-4o')}})`)).toBe(
      200,
    );
    // 2 priced calls: 2 × (1000 × 2.5 + 100 × 10) / 1e6 USD; the asking agent's model has no price.
    expect(await valueOf(`sum(agio_model_cost_usd_total)`)).toBeCloseTo(0.007, 9);
    expect(await valueOf(`sum(gen_ai_client_operation_time_to_first_chunk_seconds_count)`, (v) => v >= 3)).toBe(3);
    expect(await valueOf(`sum(agio_tool_errors_total{gen_ai_tool_name="explode"})`)).toBe(1);
    expect(await valueOf(`sum(agio_steps_total{agent="${priced.name}"})`, (v) => v >= 3)).toBeGreaterThanOrEqual(3);
    expect(await valueOf(`sum(agio_runs_ended_total{depth="0",status="completed"})`)).toBe(1);
    expect(await valueOf(`agio_approvals_waiting`, (v) => v === 1)).toBe(1);
    expect(await valueOf(`agio_approval_oldest_wait_seconds`)).toBeGreaterThan(0);
    // Paused by an operator (a free-text reason counts as `operator`): it parks after its tool call.
    const held = heldAnswer(toolCalls([toolCall('record', { label: 'p' })], { usage }));
    bed.server.scriptFor('You are pausing.', held.answer);
    const pausingRun = (ids.pausing = await start(pausing.name, 'go'));
    // Paused while its model call is open (not before it, when the run would park without asking the model).
    await held.asked;
    const runUrl = `${bridge.url}/runs/${encodeURIComponent(pausingRun)}`;
    const pause = request(`${runUrl}/pause`, { token: ADMIN, body: { reason: 'change freeze' } });
    await waitFor('the pause asked', async () => (await request(`${runUrl}/state`, { token: ADMIN })).body.paused);
    held.release();
    expect((await pause).status).toBe(200);
    expect(await valueOf(`agio_runs_paused{reason="operator"}`, (v) => v === 1)).toBe(1);
    // A worker that never saw these runs (one started after a restart, another of the fleet) counts the same waits.
    expect(await fleetWaiting(bed.client.connection, bed.client.options.namespace, taskQueue)).toMatchObject({
      approvals: 1,
      paused: 1,
    });
    expect(await valueOf(`sum(agio_model_calls_unpriced_total{${model('house-model')}})`, (v) => v >= 2)).toBe(2);
    expect(await valueOf(`agio_runs{agent="${asking.name}",status="running"}`)).toBe(1);
    expect(await valueOf(`agio_runs{agent="${priced.name}",status="completed"}`)).toBe(1);
    // The bridge: the open stream, the start requests, and the lane's lag of the events it received over NATS.
    expect(await valueOf(`agio_bridge_open_streams`)).toBe(1);
    // A second stream is past the tenant's quota of one.
    expect(
      (await request(`${bridge.url}/runs/${encodeURIComponent(askingRun)}/events`, { token: READER })).status,
    ).toBe(429);
    expect(await valueOf(`sum(agio_bridge_quota_refusals_total{quota="maxStreamsPerTenant"})`)).toBe(1);
    expect(await valueOf(`sum(agio_bridge_http_requests_total{method="POST",route="/runs",status="201"})`)).toBe(3);
    expect(await valueOf(`sum(agio_bridge_lane_lag_seconds_count{kind="event"})`)).toBeGreaterThan(0);
    // The Temporal SDK's own worker metrics come with the worker's page.
    expect(await valueOf(`count(temporal_worker_task_slots_available{job="agio-worker"})`)).toBeGreaterThan(0);
    stream.close();
    stream = undefined;
  }, 90_000);

  it("serves the bridge's metrics to an admin token only, and the worker's on loopback", async () => {
    expect((await request(`${bridge.url}/metrics`)).status).toBe(401);
    expect((await request(`${bridge.url}/metrics`, { token: READER })).status).toBe(403);
    expect((await request(`${bridge.url}/metrics`, { token: 'made-up' })).status).toBe(401);
    const ok = await request(`${bridge.url}/metrics`, { token: ADMIN });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('# TYPE agio_bridge_open_streams gauge');
    expect(new URL(workerMetricsUrl).hostname).toBe('127.0.0.1');
  });

  it('forgets the pause and approval wait of a run Temporal terminated (it appends no terminal event)', async () => {
    for (const id of [ids.asking, ids.pausing]) await bed.client.workflow.getHandle(id).terminate('metrics test');
    expect(await valueOf('agio_approvals_waiting', (v) => v === 0)).toBe(0);
    expect(await valueOf(`agio_runs_paused{reason="operator"}`, (v) => v === 0)).toBe(0);
  }, 60_000);

  it("deploy/'s alert rules pass promtool and evaluate, and they and the dashboard name only scraped metrics", async () => {
    expect(await promtool('check', 'rules', RULES)).toContain('SUCCESS: 5 rules found');
    const rules = await waitFor('rules evaluated', async () => {
      const res = await fetch(`${prometheus.url}/api/v1/rules`);
      const body = (await res.json()) as { data: { groups: { rules: { name: string; health: string }[] }[] } };
      const all = body.data.groups.flatMap((g) => g.rules);
      return all.length && all.every((r) => r.health === 'ok') && all;
    });
    expect(rules.map((r) => r.name)).toContain('AgioApprovalWaitingTooLong');
    const scraped = new Set<string>();
    for (const page of [
      await (await fetch(workerMetricsUrl)).text(),
      (await request(`${bridge.url}/metrics`, { token: ADMIN })).body as string,
    ])
      for (const m of page.matchAll(/^# TYPE (\S+) /gm)) scraped.add(m[1]);
    const exprs = [
      ...fs.readFileSync(RULES, 'utf8').matchAll(/expr: ([^\n]+(?:\n {12,}[^\n]+)*)/g),
      ...JSON.stringify(JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')).panels).matchAll(/"expr":"((?:[^"\\]|\\.)*)"/g),
    ].map((m) => m[1]);
    // Metric names: what is left once label matchers and `by (…)` lists are taken out.
    const bare = exprs.map((e) => e.replace(/\{[^}]*\}/g, '').replace(/\b(by|without)\s*\([^)]*\)/g, ''));
    const named = new Set(
      bare.flatMap((e) => [...e.matchAll(/\b(?:agio|gen_ai|temporal)_[a-z0-9_]+/g)].map((m) => m[0])),
    );
    const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const missing = [...named].filter((name) => !scraped.has(name) && !scraped.has(family(name)));
    expect(missing).toEqual([]);
    expect(named.size).toBeGreaterThan(20);
  }, 60_000);
});
