// Schedules on Temporal Schedules through a real worker and bridge: an agents file's schedule runs its agent on its
// interval (applied idempotently, by several workers at once), runs are listed with their schedule, the overlap policy
// skips a run while one runs, pause stops runs, trigger starts one, backfill starts the runs that were due, and one
// tenant never sees or touches another's schedules.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { text } from '../../devkit/scripted-model-server';
import { parseAgentsFile } from '../../worker/agents-file';
import { applyFileSchedules } from '../../worker/file-schedules';
import { heldAnswer } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { ApiDocument } from '../helpers/openapi-check';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

// Tenants unique to this file: every integration file shares one dev server.
const tenantA = `sched-a-${randomUUID()}`;
const tenantB = `sched-b-${randomUUID()}`;
const A = 'sched-a-token';
const B = 'sched-b-token';
const READER = 'sched-reader-token';
const CONTROLLER = 'sched-control-token';

const file = parseAgentsFile(
  `agents:
  - name: sched_echo
    instructions: Say what you are asked to.
  - name: sched_slow
schedules:
  - id: tick
    agent: sched_echo
    input: tick
    every: 1s
    tenant: ${tenantA}
`,
  'schedules.yaml',
);

interface Listed {
  runId: string;
  status: string;
  scheduleId?: string;
}

describe('schedules', () => {
  const schedules: [string, string][] = [];
  // Declared before the test bed's own afterAll, so it runs while the bridge is still up.
  afterAll(async () => {
    for (const [token, id] of schedules)
      await request(`${bed.bridge.url}/schedules/${id}`, { token, method: 'DELETE' });
    await bed.agio.schedules.delete(tenantA, 'tick').catch(() => undefined);
  });
  const bed = useTestBed({
    agents: file.agents,
    workerOptions: { agents: file.agents },
    bridge: {
      tokens: `${A}:${tenantA},${B}:${tenantB},${READER}:${tenantA}:reader:read,${CONTROLLER}:${tenantA}:ops:read+control`,
    },
    // Interval runs may take one more answer than a test waits for: every model call gets the default answer.
    strictModel: false,
  });
  let api: ApiDocument;
  beforeAll(async () => {
    api = await ApiDocument.of(bed.bridge.url);
  });
  /** Every answer is checked against the bridge's OpenAPI document (errors included). */
  const call = (token: string, path: string, body?: unknown, method?: string) => {
    const [route, search] = path.split('?');
    const [, collection, id, action] = /^\/(schedules|runs)(?:\/([^/]+))?(\/.*)?$/.exec(route) ?? [];
    const template = id === undefined ? route : `/${collection}/{id}${action ?? ''}`;
    return api.call({
      path: template,
      ...(id === undefined ? {} : { params: { id } }),
      ...(search ? { query: Object.fromEntries(new URLSearchParams(search)) } : {}),
      token,
      body,
      ...(method ? { method } : {}),
    });
  };
  const runsOf = async (token: string, schedule: string): Promise<Listed[]> =>
    (await call(token, `/runs?schedule=${schedule}`)).body.runs ?? [];
  const create = async (token: string, body: Record<string, unknown>) => {
    const res = await call(token, '/schedules', body);
    if (res.status === 201) schedules.push([token, body.id as string]);
    return res;
  };
  beforeEach(() => bed.server.setDefault(text('done')));

  it("runs an agents file's schedule on its interval, applied by several workers at once, listed with its schedule", async () => {
    const applied = await Promise.all(
      [1, 2, 3].map(() => applyFileSchedules(bed.client, bed.worker.taskQueue, file.schedules)),
    );
    expect(applied.flat().map((a) => a.id)).toEqual(['tick', 'tick', 'tick']);
    expect(applied.flat().filter((a) => a.result === 'created')).toHaveLength(1);
    const completed = await waitFor('a scheduled run to complete and show in GET /runs', async () =>
      (await runsOf(A, 'tick')).find((r) => r.status === 'completed'),
    );
    expect(completed).toMatchObject({ scheduleId: 'tick', runId: expect.stringMatching(/^run-[0-9a-f-]{36}-\d{4}-/) });
    const run = await call(A, `/runs/${completed.runId}`);
    expect(run.body).toMatchObject({ status: 'completed', agent: 'sched_echo', scheduleId: 'tick' });
    expect(run.body.output.response).toBe('done');
    // Its own event log, as any run's.
    const types: string[] = [];
    for await (const event of bed.agio.getHandle(completed.runId).stream()) types.push(event.type);
    expect([types[0], types.at(-1)]).toEqual(['RUN_STARTED', 'RUN_COMPLETED']);
    const listed = await call(A, '/schedules');
    expect(listed.body.schedules).toEqual([
      expect.objectContaining({ id: 'tick', agent: 'sched_echo', source: 'agents-file', paused: false }),
    ]);
    // Paused: no run starts any more (two intervals pass without one), and applying the file again keeps it paused.
    const paused = await call(CONTROLLER, '/schedules/tick/pause', { note: 'quiet please' });
    expect(paused.body).toMatchObject({ paused: true, note: 'quiet please', nextRunTimes: [] });
    await waitFor(
      'the runs started before the pause to end',
      async () => (await bed.agio.schedules.get(tenantA, 'tick')).runningRuns.length === 0,
    );
    const before = (await bed.agio.schedules.get(tenantA, 'tick')).counts.started;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // A changed file updates the schedule: its new declaration, still paused, still the file's.
    await applyFileSchedules(bed.client, bed.worker.taskQueue, [{ ...file.schedules[0], every: '1h' }]);
    const after = await bed.agio.schedules.get(tenantA, 'tick');
    expect(after).toMatchObject({ every: '1h', paused: true, source: 'agents-file', counts: { started: before } });
  });

  it('skips a run due while the previous one still runs, and trigger starts one at once', async () => {
    const held = heldAnswer(text('slow done'));
    bed.server.setDefault(held.answer);
    const res = await create(A, {
      id: 'slow',
      agent: 'sched_slow',
      input: 'go',
      cron: '0 0 1 1 *',
      timezone: 'Europe/Paris',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'slow', cron: ['0 0 1 1 *'], overlap: 'skip', paused: false, source: 'api' });
    expect(res.body.nextRunTimes[0]).toMatch(/-12-31T23:00:00/);
    expect((await call(A, '/schedules/slow/trigger', {})).status).toBe(202);
    await waitFor('the triggered run to ask the model', async () => {
      return bed.server.requests.length === 1;
    });
    expect((await call(A, '/schedules/slow/trigger', {})).status).toBe(202);
    const skipped = await waitFor('the second trigger to be skipped', async () => {
      const view = await bed.agio.schedules.get(tenantA, 'slow');
      return view.counts.skippedOverlap === 1 && view;
    });
    expect(skipped.counts.started).toBe(1);
    expect(skipped.runningRuns).toHaveLength(1);
    held.release();
    await bed.agio.getHandle(skipped.runningRuns[0]).result();
    expect(bed.server.requests).toHaveLength(1);
  });

  it('backfills the runs that were due in a past range, even while paused', async () => {
    const res = await create(A, { id: 'hourly', agent: 'sched_echo', input: 'catch up', every: '1m', paused: true });
    expect(res.body).toMatchObject({ paused: true, every: '1m' });
    // Three minute marks inside the range, none on its ends.
    const start = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 4 * 60_000 + 30_000);
    const end = new Date(start.getTime() + 3 * 60_000);
    const body = { start: start.toISOString(), end: end.toISOString() };
    expect((await call(A, '/schedules/hourly/backfill', body)).status).toBe(202);
    const runs = await waitFor('three completed backfilled runs', async () => {
      const listed = await runsOf(A, 'hourly');
      return listed.filter((r) => r.status === 'completed').length === 3 && listed;
    });
    expect(runs).toHaveLength(3);
    expect(bed.server.requests).toHaveLength(3);
  });

  it("keeps each tenant's schedules its own", async () => {
    await create(A, { id: 'mine', agent: 'sched_echo', input: 'a', cron: '@daily' });
    for (const [method, path, body] of [
      ['GET', '/schedules/mine'],
      ['POST', '/schedules/mine/pause', {}],
      ['POST', '/schedules/mine/trigger', {}],
      ['PUT', '/schedules/mine', { agent: 'sched_echo', input: 'b', cron: '@hourly' }],
      ['DELETE', '/schedules/mine'],
    ] as const)
      expect(await call(B, path, body, method)).toMatchObject({
        status: 404,
        body: { error: { code: 'schedule_not_found' } },
      });
    expect((await call(B, '/schedules')).body.schedules).toEqual([]);
    expect(await runsOf(B, 'tick')).toEqual([]);
    // The same id in another tenant is another schedule.
    expect((await create(B, { id: 'mine', agent: 'sched_echo', input: 'b', cron: '@daily' })).status).toBe(201);
    expect((await call(A, '/schedules/mine')).body).toMatchObject({ input: 'a', paused: false });
    const updated = await call(A, '/schedules/mine', { agent: 'sched_echo', input: 'a2', cron: '@hourly' }, 'PUT');
    expect(updated).toMatchObject({ status: 200, body: { id: 'mine', input: 'a2', cron: ['@hourly'], paused: false } });
    expect(await bed.agio.schedules.get(tenantB, 'mine')).toMatchObject({ input: 'b', cron: ['@daily'] });
  });

  it('refuses bad specs, unknown agents, duplicates and tokens without the scopes', async () => {
    const base = { id: 'bad', agent: 'sched_echo', input: 'x' };
    const refused = async (body: Record<string, unknown>, message: RegExp, token = A) => {
      const res = await call(token, '/schedules', body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
    };
    await refused({ ...base, cron: 'every day at nine' }, /five fields/);
    await refused({ ...base, cron: '61 * * * *' }, /minute field "61"/);
    await refused({ ...base, every: '500ms' }, /every: .*at least 1s/);
    await refused({ ...base, every: 'soon' }, /every: a duration/);
    await refused({ ...base, cron: '@daily', every: '1h' }, /exactly one of "cron"/);
    await refused({ ...base }, /exactly one of "cron"/);
    await refused({ ...base, cron: '@daily', timezone: 'Mars/Olympus' }, /IANA time zone/);
    await refused({ ...base, cron: '@daily', overlap: 'sometimes' }, /overlap: one of skip/);
    await refused({ ...base, id: 'a/b', cron: '@daily' }, /schedule ids are/);
    const unknown = await call(A, '/schedules', { ...base, agent: 'nobody', cron: '@daily' });
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'unknown_agent' } } });
    expect((await call(READER, '/schedules', { ...base, cron: '@daily' })).status).toBe(403);
    const noStart = await call(CONTROLLER, '/schedules', { ...base, cron: '@daily' });
    expect(noStart).toMatchObject({ status: 403, body: { error: { scope: 'start' } } });
    expect((await call(READER, '/schedules/tick/pause', {})).status).toBe(403);
    expect((await call(A, '/schedules/nope/trigger', {})).status).toBe(404);
    expect((await create(A, { ...base, id: 'twice', cron: '@daily' })).status).toBe(201);
    expect((await call(A, '/schedules', { ...base, id: 'twice', cron: '@daily' })).status).toBe(409);
    const future = { start: new Date().toISOString(), end: new Date(Date.now() + 3_600_000).toISOString() };
    expect((await call(A, '/schedules/twice/backfill', future)).status).toBe(400);
  });

  it('is driven from the CLI: agio schedule create, trigger and delete, and agio runs --schedule', async () => {
    const root = path.resolve(__dirname, '../..');
    const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: A };
    const agio = async (...args: string[]) =>
      JSON.parse(
        (
          await promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', ...args], {
            cwd: root,
            env,
          })
        ).stdout,
      );
    const created = await agio(
      'schedule',
      'create',
      'cli',
      'sched_echo',
      'from the cli',
      '--cron',
      '0 9 * * MON-FRI',
      '--timezone',
      'UTC',
      '--paused',
      '--trigger-now',
    );
    expect(created).toMatchObject({ id: 'cli', cron: ['0 9 * * MON-FRI'], paused: true, source: 'api' });
    const runs = await waitFor('the run the CLI triggered to complete', async () => {
      const listed = await runsOf(A, 'cli');
      return listed.some((r) => r.status === 'completed') && listed;
    });
    expect(await agio('runs', '--schedule', 'cli')).toEqual({
      runs: [expect.objectContaining({ runId: runs[0].runId, scheduleId: 'cli' })],
    });
    expect(await agio('schedule', 'delete', 'cli')).toEqual({ id: 'cli', deleted: true });
    expect((await call(A, '/schedules/cli')).status).toBe(404);
  });
});
