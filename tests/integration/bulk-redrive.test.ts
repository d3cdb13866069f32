// Bulk re-drive over HTTP on a real dev server, worker and bridge, on 200 runs parked on an approval: a dry run counts
// them, a bulk pause then a bulk resume of all 200 end with a report of each run, filters narrow what a job acts on
// (agent, start time), a repeat is skipped, and a bulk cancel ends them. Non-admin tokens and bad filters are refused.
import { randomUUID } from 'node:crypto';
import { stateQuery } from '../../common/messages';
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TENANT = `bulk${randomUUID().slice(0, 8)}`;
const ADMIN = 'bulk-admin-token';
const OPERATOR = 'bulk-operator-token';
const RUNS = 200;
const OTHER_AGENT_RUNS = 10;

describe('bulk re-drive of 200 runs', () => {
  const bed = useTestBed({
    tools: testTools,
    bridge: { tokens: `${ADMIN}:${TENANT}:ops:read+control+admin,${OPERATOR}:${TENANT}:bob:read+control` },
  });
  const main = askingAgent('bulk-main');
  const other = askingAgent('bulk-other');
  const runIds: string[] = [];
  let startedAt = '';

  const post = (body: unknown, token = ADMIN) => request(`${bed.bridge.url}/bulk`, { token, body });
  /** Runs a job to its end; answers its report. */
  const runJob = async (body: Record<string, unknown>) => {
    const started = await post(body);
    expect(started.status).toBe(202);
    const url = `${bed.bridge.url}${started.body.links.self}`;
    return waitFor(
      `bulk job ${started.body.jobId}`,
      async () => {
        const { body: progress } = await request(url, { token: ADMIN });
        return progress.state === 'completed' && progress;
      },
      60_000,
    );
  };
  const pausedRuns = async () => {
    const states = await Promise.all(runIds.map((id) => bed.agio.getHandle(id).workflow.query(stateQuery)));
    return states.filter((s) => s.paused).length;
  };

  beforeAll(async () => {
    startedAt = new Date().toISOString();
    // Each run asks the model once, calls `record`, and parks waiting for a decision that never comes.
    bed.server.setDefault((_req, i) => toolCalls([toolCall('record', { label: 'x' }, { id: `call_${i}` })]));
    const started = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        bed.agio.start(i < OTHER_AGENT_RUNS ? other : main, 'go', { tenant: TENANT }),
      ),
    );
    runIds.push(...started.map((r) => r.runId));
    await waitFor('every run asked the model', () => bed.server.requests.length >= RUNS, 60_000);
  }, 90_000);

  it('refuses a token without admin, a bad filter and an action on runs it cannot act on', async () => {
    expect((await post({ action: 'pause', dryRun: true }, OPERATOR)).status).toBe(403);
    const bad = [
      { action: 'pause', filter: { status: 'sleeping' } },
      { action: 'pause', filter: { startedAfter: 'yesterday' } },
      { action: 'pause', filter: { agent: 'has space' } },
      { action: 'pause', filter: { unknown: 1 } },
      { action: 'explode' },
      { action: 'pause', filter: { startedAfter: '2026-01-02T00:00:00Z', startedBefore: '2026-01-01T00:00:00Z' } },
      { action: 'pause', filter: { status: 'completed' } },
      { action: 'pause', filter: { tenant: 'someone-else' } },
    ];
    const answers = await Promise.all(bad.map((body) => post(body)));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 403]);
    expect(answers[6].body.error.message).toMatch(/pause acts on running runs/);
  });

  it('counts the runs a filter matches in a dry run, acting on none', async () => {
    const all = await waitFor('visibility lists every run', async () => {
      const { body } = await post({ action: 'pause', dryRun: true });
      return body.matched === RUNS && body;
    });
    expect(all).toMatchObject({ dryRun: true, matched: RUNS, more: false, filter: { status: 'running' } });
    const byAgent = await post({ action: 'pause', dryRun: true, filter: { agent: other.name } });
    expect(byAgent.body.matched).toBe(OTHER_AGENT_RUNS);
    const before = await post({ action: 'pause', dryRun: true, filter: { startedBefore: startedAt } });
    expect(before.body.matched).toBe(0);
    const after = await post({ action: 'pause', dryRun: true, filter: { startedAfter: startedAt } });
    expect(after.body.matched).toBe(RUNS);
    expect(await pausedRuns()).toBe(0);
  });

  it('pauses all 200 and reports each run; a second pause of some skips them', async () => {
    const report = await runJob({ action: 'pause', reason: 'provider outage' });
    expect(report).toMatchObject({ state: 'completed', matched: RUNS, done: RUNS, failed: 0, skipped: 0 });
    expect(new Set(report.outcomes.map((o: { runId: string }) => o.runId))).toEqual(new Set(runIds));
    expect(report.outcomes.filter((o: { detail?: string }) => o.detail === 'pending')).toEqual([]);
    expect(await pausedRuns()).toBe(RUNS);

    const again = await runJob({ action: 'pause', filter: { agent: other.name } });
    expect(again).toMatchObject({ matched: OTHER_AGENT_RUNS, done: 0, skipped: OTHER_AGENT_RUNS });
    expect(again.outcomes[0].detail).toBe('already_paused');
  });

  it('resumes all 200 with a report, and cancels them in bulk', async () => {
    const report = await runJob({ action: 'resume' });
    expect(report).toMatchObject({ state: 'completed', matched: RUNS, done: RUNS, failed: 0 });
    expect(await pausedRuns()).toBe(0);

    const cancelled = await runJob({ action: 'cancel' });
    expect(cancelled).toMatchObject({ matched: RUNS, done: RUNS, failed: 0 });
    // A cancel is asked for: each run ends cancelled once it has handled it.
    await waitFor('every run ended cancelled', async () => {
      const ended = await Promise.all(runIds.map((id) => bed.agio.getHandle(id).workflow.describe()));
      return ended.every((d) => d.status.name === 'CANCELLED');
    });
  });

  it('answers 404 for a job that does not exist', async () => {
    const missing = await request(`${bed.bridge.url}/bulk/bulk-${randomUUID()}`, { token: ADMIN });
    expect(missing.status).toBe(404);
    expect((await request(`${bed.bridge.url}/bulk/not-a-job`, { token: ADMIN })).status).toBe(400);
  });
});
