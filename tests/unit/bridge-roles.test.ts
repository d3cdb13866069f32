// Pure parts of the bridge's roles: AGIO_TOKENS entries with identities and scopes (old entries keep their meaning),
// the running-runs quota's count, and which run limits only tighten the agent's.
import { DEFAULT_SCOPES, grantOf, parseTokens } from '../../bridge/auth';
import { HttpError } from '../../bridge/errors';
import { RunningRunsQuota, TenantStreams } from '../../bridge/quotas';
import { refuseLimitRaise, refuseMaxTokensRaise } from '../../bridge/run-limits';
import { defineAgent, sequentialAgent } from '../../common';

describe('AGIO_TOKENS', () => {
  it('reads token:tenant as before (every scope but admin, identity api:<tenant>) and takes identities and scopes', () => {
    const tokens = parseTokens('dev:acme, r0:acme:dash:read ,ops:acme:alice:read+decide+control+admin,t:beta::start');
    expect(tokens.get('dev')).toEqual({ tenant: 'acme', identity: 'api:acme', scopes: new Set(DEFAULT_SCOPES) });
    expect(tokens.get('r0')).toEqual({ tenant: 'acme', identity: 'dash', scopes: new Set(['read']) });
    expect([...tokens.get('ops')!.scopes]).toEqual(['read', 'decide', 'control', 'admin']);
    expect(tokens.get('t')).toMatchObject({ identity: 'api:beta', scopes: new Set(['start']) });
    expect(grantOf('acme')).toEqual(tokens.get('dev'));
  });

  it('takes roles as a fifth field (an empty scope list before them keeps the default scopes)', () => {
    const tokens = parseTokens('lead:acme:bob::approver-lead+sec,ops:acme:alice:read+decide:oncall');
    expect(tokens.get('lead')).toEqual({
      tenant: 'acme',
      identity: 'bob',
      scopes: new Set(DEFAULT_SCOPES),
      roles: new Set(['approver-lead', 'sec']),
    });
    expect(tokens.get('ops')).toMatchObject({ scopes: new Set(['read', 'decide']), roles: new Set(['oncall']) });
  });

  it('refuses unknown scopes, empty scope lists, extra fields and repeated tokens, without echoing the token', () => {
    expect(() => parseTokens('secret-value:acme:me:write')).toThrow(/scopes are start, read, decide, control, admin/);
    expect(() => parseTokens('secret-value:acme:me:')).toThrow(/scopes/);
    expect(() => parseTokens('secret-value:acme:me:read:x:y')).toThrow(/token:tenant\[:identity/);
    expect(() => parseTokens('secret-value:acme:me:read:bad role')).toThrow(/a role is/);
    expect(() => parseTokens('a:acme,a:beta')).toThrow(/listed twice/);
    expect(() => parseTokens('secret-value:acme:me:write')).not.toThrow(/secret-value/);
  });
});

describe('RunningRunsQuota', () => {
  it('counts starts admitted since the last visibility count, gives back failed ones, and asks again after 2 s', async () => {
    let now = 0;
    const asked: string[] = [];
    const quota = new RunningRunsQuota(
      async (tenant) => {
        asked.push(tenant);
        return 1;
      },
      3,
      () => now,
    );
    await quota.admit('acme');
    const failed = await quota.admit('acme');
    await expect(quota.admit('acme')).rejects.toMatchObject({ status: 429, headers: { 'retry-after': '5' } });
    failed();
    failed();
    await quota.admit('acme');
    expect(asked).toEqual(['acme']);
    now = 2_000;
    await quota.admit('acme');
    expect(asked).toEqual(['acme', 'acme']);
  });

  it('shares one count among concurrent starts', async () => {
    let calls = 0;
    const quota = new RunningRunsQuota(async () => (calls++, 0), 2);
    const results = await Promise.allSettled([1, 2, 3].map(() => quota.admit('acme')));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(calls).toBe(1);
  });
});

describe('TenantStreams', () => {
  it('refuses a stream past the cap per tenant and frees a slot once, however often it is closed', () => {
    const streams = new TenantStreams(1);
    const close = streams.acquire('acme');
    expect(() => streams.acquire('acme')).toThrow(HttpError);
    streams.acquire('beta');
    close();
    close();
    expect(streams.count('acme')).toBe(0);
    streams.acquire('acme');
    expect(() => streams.acquire('acme')).toThrow(/quota is 1/);
  });
});

describe('run limits over the agent’s', () => {
  const agent = defineAgent({ name: 'a', maxSteps: 4, limits: { maxModelInputBytes: 4000 } });
  const refused = (limits: object, allow = false) => {
    try {
      refuseLimitRaise(agent, limits, allow);
      return undefined;
    } catch (err) {
      return (err as HttpError).details;
    }
  };

  it('lets a run tighten any limit and set ones the agent leaves unbounded, and refuses raising one', () => {
    expect(refused({ maxSteps: 4, maxTotalTokens: 10 ** 6, modelMaxAttempts: 50, compactModelInputBytes: 3000 })).toBe(
      undefined,
    );
    expect(refused({ maxSteps: 5 })).toEqual({ limit: 'maxSteps', requested: 5, agentLimit: 4 });
    expect(refused({ compactModelInputBytes: 3001 })).toEqual({
      limit: 'compactModelInputBytes',
      requested: 3001,
      agentLimit: 3000,
    });
    expect(refused({ continueAsNewAfterModelCalls: 201 })).toMatchObject({ limit: 'continueAsNewAfterModelCalls' });
    expect(refused({ maxSteps: 5 }, true)).toBe(undefined);
  });

  it('refuses modelSettings.maxTokens above the agent’s own, a workflow agent’s lowest LLM sub-agent included', () => {
    const writer = defineAgent({ name: 'writer', modelSettings: { maxTokens: 500 } });
    const flow = sequentialAgent({ name: 'flow', subAgents: [defineAgent({ name: 'free' }), writer] });
    const refusal = (spec: Parameters<typeof refuseMaxTokensRaise>[0], n: number) => {
      try {
        refuseMaxTokensRaise(spec, n, false);
        return undefined;
      } catch (err) {
        return (err as HttpError).details;
      }
    };
    expect(refusal(writer, 500)).toBe(undefined);
    expect(refusal(flow, 501)).toEqual({ limit: 'modelSettings.maxTokens', requested: 501, agentLimit: 500 });
    expect(refusal(agent, 10 ** 5)).toBe(undefined);
  });
});
