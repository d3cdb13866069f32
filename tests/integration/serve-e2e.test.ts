// The README's main job as a new user meets it: `agio serve` (its own dev server, worker, bridge and the offline
// demo model), driven with the real curl binary exactly as the README shows, then stopped with Ctrl-C.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgioEvent } from '../../common';
import { expectWholeLogs } from '../helpers/nested-runs';
import { DEV_TOKEN_HEADER, curl, startServe, type ServeProcess, curlStartRun } from '../helpers/serve-process';

const root = path.resolve(__dirname, '../..');

describe('agio serve, driven with curl as the README shows', () => {
  jest.setTimeout(240_000);
  let serve: ServeProcess;
  let dataDir: string;
  let url: string;
  const H = DEV_TOKEN_HEADER;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-'));
    // As a user's serve starts from the sources: it bundles Agio's workflows itself (the other serve tests load the
    // global setup's bundle through AGIO_WORKFLOW_BUNDLE).
    serve = await startServe(dataDir, 0, { env: { AGIO_WORKFLOW_BUNDLE: undefined } });
    url = serve.url;
  });

  afterAll(async () => {
    if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('says it uses the offline demo model and prints where the bridge listens', () => {
    expect(serve.output()).toContain('OPENAI_API_KEY is not set');
    expect(serve.output()).toContain(`bridge     ${url}`);
  });

  it('starts a run with curl, streams its events with curl -N until the stream closes, and returns the result', () => {
    const started = curlStartRun(url, { agent: 'lead', input: 'what is in the workspace?' });
    expect(started.runId).toMatch(/^run-/);
    const sse = curl('-N', `${url}/runs/${started.runId}/events`, '-H', H);
    const frames = sse.split('\n\n').filter((f) => f.includes('data: '));
    const events = frames.map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as AgioEvent);
    // Durable events have offsets 0..n-1 in their own run's log (a nested run keeps its own); live deltas (in
    // process: worker and bridge share serve) carry the offset before them and their lane position.
    const durable = events.filter((e) => e.type !== 'STEP_DELTA');
    expectWholeLogs(durable);
    expect(
      events.filter((e) => e.type === 'STEP_DELTA').every((e) => typeof (e as { seq?: number }).seq === 'number'),
    ).toBe(true);
    expect(events[0].type).toBe('RUN_STARTED');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, agent: 'lead' });
    expect(events.some((e) => e.depth === 1 && e.agent === 'coder' && e.type === 'RUN_COMPLETED')).toBe(true);
    expect(events.some((e) => e.type === 'STEP_DELTA')).toBe(true);
    // Resumed from the id of the sixth durable event (its durable part), the stream goes on with the seventh.
    const ids = frames.filter((_, i) => events[i].type !== 'STEP_DELTA').map((f) => /^id: ([^.\n]*)/m.exec(f)![1]);
    const resumed = curl('-N', `${url}/runs/${started.runId}/events`, '-H', H, '-H', `Last-Event-ID: ${ids[5]}`);
    expect(resumed).toMatch(new RegExp(`^: run .*\\n\\nid: ${ids[6]}\\n`));
    const next = JSON.parse(/^data: (.*)$/m.exec(resumed)![1]) as AgioEvent;
    expect([next.runId, next.offset]).toEqual([durable[6].runId, durable[6].offset]);
    const status = JSON.parse(curl(`${url}/runs/${started.runId}`, '-H', H)) as {
      status: string;
      output: { response: string };
    };
    expect(status.status).toBe('completed');
    expect(status.output.response).toContain('offline demo model');
    const agents = JSON.parse(curl(`${url}/agents`, '-H', H)) as { agents: { name: string }[] };
    expect(agents.agents.map((a) => a.name)).toEqual(
      expect.arrayContaining(['assistant', 'coder', 'researcher', 'lead']),
    );
    expect(JSON.parse(curl(`${url}/runs/${started.runId}`))).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('lists the finished run with `agio runs` (visibility catches up within seconds)', async () => {
    const agio = (...args: string[]) =>
      execFileSync(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, AGIO_URL: url, AGIO_TOKEN: 'dev-token' },
      });
    let listed: { runs: { runId: string; agent: string; status: string }[] } = { runs: [] };
    for (let i = 0; i < 20 && !listed.runs.length; i++) {
      listed = JSON.parse(agio('runs', '--status', 'completed', '--agent', 'lead', '--limit', '5'));
      if (!listed.runs.length) await new Promise((r) => setTimeout(r, 500));
    }
    expect(listed.runs).toEqual([
      expect.objectContaining({ agent: 'lead', status: 'completed', runId: expect.stringMatching(/^run-/) }),
    ]);
  });

  it('shuts everything down on Ctrl-C, leaves no Temporal server behind and releases its data directory', async () => {
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
    expect(serve.output()).toContain('agio: stopped');
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps).not.toContain(path.join(dataDir, 'temporal.db'));
    expect(fs.existsSync(path.join(dataDir, 'serve.lock'))).toBe(false);
  });
});
