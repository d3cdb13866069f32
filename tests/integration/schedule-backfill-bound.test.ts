// A backfill of a cron schedule is bounded like one of an interval schedule: a range in which the cron fires more than
// MAX_BACKFILL_RUNS times is refused with 400 before any run starts (it was accepted, and `* * * * *` over the longest
// span would have started half a million runs); a range in which it fires few times is accepted.
import { randomUUID } from 'node:crypto';
import { text } from '../../devkit/scripted-model-server';
import { parseAgentsFile } from '../../worker/agents-file';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';

const TENANT = `backfill-${randomUUID()}`;
const TOKEN = 'backfill-bound-token';
const file = parseAgentsFile(
  `agents:
  - name: backfill_echo
    instructions: Say what you are asked to.
`,
  'backfill.yaml',
);

describe('backfill bound of a cron schedule', () => {
  const created: string[] = [];
  // Declared before the test bed's own afterAll, so it runs while the bridge is still up.
  afterAll(async () => {
    for (const id of created) await request(`${bed.bridge.url}/schedules/${id}`, { token: TOKEN, method: 'DELETE' });
  });
  const bed = useTestBed({
    agents: file.agents,
    workerOptions: { agents: file.agents },
    bridge: { tokens: `${TOKEN}:${TENANT}` },
    strictModel: false,
  });
  beforeEach(() => bed.server.setDefault(text('done')));
  const call = (path: string, body?: unknown) => request(`${bed.bridge.url}${path}`, { token: TOKEN, body });
  const schedule = async (id: string, cron: string) => {
    const res = await call('/schedules', { id, agent: 'backfill_echo', input: 'x', cron, paused: true });
    expect(res.status).toBe(201);
    created.push(id);
  };

  it('refuses a range with more than 1000 cron firings, accepts one with few', async () => {
    await schedule('hourly', '0 * * * *');
    // 42 days of an hourly cron: 1008 runs. (`skip`: should it be accepted, it starts one run, not a thousand.)
    const end = new Date(Date.now() - 3_600_000);
    const start = new Date(end.getTime() - 42 * 86_400_000);
    const range = { start: start.toISOString(), end: end.toISOString(), overlap: 'skip' };
    const refused = await call('/schedules/hourly/backfill', range);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/at most 1000 runs/);

    // A macro counts as its expression: @yearly fires on no day of a summer month.
    await schedule('yearly', '@yearly');
    const summer = { start: '2025-06-01T00:00:00Z', end: '2025-07-01T00:00:00Z' };
    expect((await call('/schedules/yearly/backfill', summer)).status).toBe(202);
    const twoDays = { start: new Date(end.getTime() - 2 * 86_400_000).toISOString(), end: end.toISOString() };
    await schedule('minutely', '* * * * *');
    expect((await call('/schedules/minutely/backfill', { ...twoDays, overlap: 'skip' })).status).toBe(400);
  });
});
