// Schedule declarations without a server: cron and duration checks, the agents file's `schedules:` errors, and what a
// declaration becomes on Temporal (a start by name of the tenant's agent, under the tenant's schedule id).
import { cronProblem, durationMs, ScheduleDeclaration, scheduleIdOf, scheduleNameOf } from '../../common/schedules';
import { scheduleOptions } from '../../client/schedule-options';
import { AgentsFileError, parseAgentsFile } from '../../worker/agents-file';

describe('schedule declarations', () => {
  it('accepts five-field cron expressions, names and macros, and says what is wrong with others', () => {
    for (const ok of ['0 9 * * MON-FRI', '*/15 * * * *', '0 0 1 jan,jul *', '5,35 8-18/2 1-7 * 0', '@daily', '@HOURLY'])
      expect(cronProblem(ok)).toBeUndefined();
    expect(cronProblem('0 9 * *')).toMatch(/five fields .* not 4/);
    expect(cronProblem('0 24 * * *')).toMatch(/hour field "24"/);
    expect(cronProblem('0 0 0 * *')).toMatch(/day of month field "0"/);
    expect(cronProblem('0 0 * * FUNDAY')).toMatch(/day of week field/);
    expect(cronProblem('5-1 * * * *')).toMatch(/minute field/);
    expect(cronProblem('*/0 * * * *')).toMatch(/minute field/);
    expect(cronProblem('@sometimes')).toMatch(/macros are/);
    expect(cronProblem('CRON_TZ=UTC 0 9 * * *')).toMatch(/"timezone"/);
  });

  it('reads durations as units or milliseconds', () => {
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('2d')).toBe(172_800_000);
    expect(durationMs(1500)).toBe(1500);
    expect(durationMs('soon')).toBeUndefined();
    expect(durationMs('-5s')).toBeUndefined();
  });

  it('needs exactly one timing, a known time zone and an interval of at least a second', () => {
    const base = { id: 'nightly', agent: 'coder', input: 'go' };
    expect(ScheduleDeclaration.safeParse({ ...base, cron: '@daily', timezone: 'Europe/Paris' }).success).toBe(true);
    const message = (value: unknown) => {
      const parsed = ScheduleDeclaration.safeParse(value);
      return parsed.success ? '' : parsed.error.issues.map((i) => i.message).join('; ');
    };
    expect(message(base)).toMatch(/exactly one of "cron"/);
    expect(message({ ...base, cron: '@daily', every: '1h' })).toMatch(/exactly one of "cron"/);
    expect(message({ ...base, every: '999ms' })).toMatch(/at least 1s/);
    expect(message({ ...base, cron: '@daily', timezone: 'Europe/Atlantis' })).toMatch(/IANA time zone/);
    expect(message({ ...base, cron: '@daily', extra: 1 })).toMatch(/extra/);
  });

  it('namespaces schedule ids per tenant', () => {
    expect(scheduleIdOf('acme', 'nightly')).toBe('agio/acme/nightly');
    expect(scheduleNameOf('acme', 'agio/acme/nightly')).toBe('nightly');
    expect(scheduleNameOf('acme', 'agio/acme-2/nightly')).toBeUndefined();
    expect(scheduleNameOf('acme', 'other')).toBeUndefined();
  });

  it("becomes a start by name of the tenant's agent, with the tenant and agent on the schedule and its runs", () => {
    const decl = ScheduleDeclaration.parse({
      id: 'n',
      agent: 'coder',
      input: 'go',
      every: '15m',
      overlap: 'buffer_one',
      limits: { maxSteps: 5 },
    });
    const options = scheduleOptions(decl, { tenant: 'acme', taskQueue: 'q', source: 'api', workflowIdBase: 'run-x' });
    expect(options.spec).toEqual({ intervals: [{ every: 900_000 }] });
    expect(options.policies).toEqual({ overlap: 'BUFFER_ONE', catchupWindow: 60_000, pauseOnFailure: false });
    expect(options.action).toMatchObject({
      workflowType: 'agentByName',
      taskQueue: 'q',
      workflowId: 'run-x',
      args: [{ agentName: 'coder', input: 'go', context: { tenant: 'acme', limits: { maxSteps: 5 } } }],
      memo: { tenant: 'acme', agent: 'coder', schedule: decl },
    });
    expect(options.memo).toEqual({ tenant: 'acme', agent: 'coder', source: 'api', declaration: decl });
  });

  it('hands cron, time zone, jitter and catch-up window to Temporal as it takes them', () => {
    const decl = ScheduleDeclaration.parse({
      id: 'n',
      agent: 'coder',
      input: 'go',
      cron: ['0 9 * * MON-FRI', '@monthly'],
      timezone: 'America/New_York',
      jitter: '30s',
      catchupWindow: '10m',
      pauseOnFailure: true,
      paused: true,
      note: 'holidays',
    });
    const options = scheduleOptions(decl, { tenant: 'acme', taskQueue: 'q', source: 'api', workflowIdBase: 'run-x' });
    expect(options.spec).toEqual({
      cronExpressions: ['0 9 * * MON-FRI', '@monthly'],
      timezone: 'America/New_York',
      jitter: 30_000,
    });
    expect(options.policies).toEqual({ overlap: 'SKIP', catchupWindow: 600_000, pauseOnFailure: true });
    expect(options.state).toEqual({ paused: true, note: 'holidays' });
  });
});

describe("an agents file's schedules", () => {
  const file = (schedules: string) => `agents:\n  - name: coder\n  - name: lead\nschedules:\n${schedules}`;

  it('are read with their tenant', () => {
    const loaded = parseAgentsFile(
      file('  - { id: nightly, agent: coder, input: review, cron: "0 2 * * *", tenant: acme }\n'),
      'a.yaml',
    );
    expect(loaded.schedules).toEqual([
      { id: 'nightly', agent: 'coder', input: 'review', cron: ['0 2 * * *'], tenant: 'acme' },
    ]);
  });

  it('name the line of an unknown agent, a bad cron and an id declared twice', () => {
    const source = file(
      [
        '  - { id: a, agent: nobody, input: x, every: 1h }',
        '  - { id: b, agent: coder, input: x, cron: "0 25 * * *" }',
        '  - { id: a, agent: lead, input: x, every: 1h }',
        '',
      ].join('\n'),
    );
    let problems: string[] = [];
    try {
      parseAgentsFile(source, 'a.yaml');
    } catch (err) {
      problems = (err as AgentsFileError).problems;
    }
    expect(problems).toEqual([expect.stringMatching(/^line 6: schedules\[1\]\.cron: "0 25 \* \* \*": the hour field/)]);
    const second = file(
      ['  - { id: a, agent: nobody, input: x, every: 1h }', '  - { id: a, agent: lead, input: x, every: 1h }', ''].join(
        '\n',
      ),
    );
    expect(() => parseAgentsFile(second, 'a.yaml')).toThrow(AgentsFileError);
    try {
      parseAgentsFile(second, 'a.yaml');
    } catch (err) {
      expect((err as AgentsFileError).problems).toEqual([
        'line 5: schedules[0].agent: unknown agent "nobody"; the file defines: coder, lead',
        'line 6: schedules[1].id: schedule "a" is declared twice (also schedules[0])',
      ]);
    }
  });
});
