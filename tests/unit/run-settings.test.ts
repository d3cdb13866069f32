// A run's own settings: model settings merged over its agent's (LLM agents, every LLM sub-agent of a workflow
// agent, never agents used as tools), the bounds of limits a caller asks for (recorded limits stay unbounded), and
// what POST /runs accepts: bounded rules, settings and state, unknown fields refused, `allow` only when enabled.
import {
  asTool,
  defineAgent,
  loopAgent,
  sequentialAgent,
  RUN_LIMIT_MAXIMUMS,
  RunLimitOverrides,
  RunLimitRequest,
  AgentRunInput,
  type AgentSpec,
} from '../../common';
import { withModelSettings } from '../../client/model-settings';
import { MAX_RUN_PERMISSIONS, StartRunBody, refuseAllowRules } from '../../bridge/start-run';

describe('withModelSettings', () => {
  const helper = defineAgent({ name: 'helper', modelSettings: { temperature: 0.9 } });
  const writer = defineAgent({
    name: 'writer',
    modelSettings: { temperature: 1, topP: 0.5 },
    tools: ['ls', asTool(helper, { description: 'Helps.' })],
  });

  it("merges over an LLM agent's own settings, keeping the ones it does not name, and leaves its agent tools alone", () => {
    const merged = withModelSettings(writer, { temperature: 0.1, maxTokens: 200, toolChoice: undefined });
    expect(merged.modelSettings).toEqual({ temperature: 0.1, topP: 0.5, maxTokens: 200 });
    expect(merged.tools).toEqual(writer.tools);
    expect(writer.modelSettings).toEqual({ temperature: 1, topP: 0.5 });
  });

  it('merges over every LLM sub-agent of a workflow agent, at any depth', () => {
    const inner = sequentialAgent({ name: 'inner', subAgents: [defineAgent({ name: 'c' }), writer] });
    const loop = loopAgent({
      name: 'outer',
      subAgents: [defineAgent({ name: 'a', modelSettings: { topP: 0.2 } }), inner],
      maxIterations: 2,
    });
    const merged = withModelSettings(loop, { temperature: 0 });
    const [a, mergedInner] = merged.subAgents as [AgentSpec, typeof inner];
    const [c, mergedWriter] = mergedInner.subAgents as AgentSpec[];
    expect(a.modelSettings).toEqual({ topP: 0.2, temperature: 0 });
    expect(c.modelSettings).toEqual({ temperature: 0 });
    expect(mergedWriter.modelSettings).toEqual({ temperature: 0, topP: 0.5 });
    expect(mergedWriter.tools).toEqual(writer.tools);
    expect(merged).toMatchObject({ kind: 'loop', name: 'outer', maxIterations: 2 });
  });
});

describe('limits a caller asks for', () => {
  it('has a maximum for every limit there is', () => {
    expect(Object.keys(RUN_LIMIT_MAXIMUMS).sort()).toEqual(Object.keys(RunLimitOverrides.shape).sort());
    expect(Object.keys(RunLimitRequest.shape).sort()).toEqual(Object.keys(RunLimitOverrides.shape).sort());
  });

  it('refuses a value over its maximum, naming the limit, and accepts the maximum itself', () => {
    for (const [name, max] of Object.entries(RUN_LIMIT_MAXIMUMS)) {
      expect(RunLimitRequest.safeParse({ [name]: max }).success).toBe(true);
      const over = RunLimitRequest.safeParse({ [name]: max + 1 });
      expect(over.success).toBe(false);
      expect(over.error?.issues[0].path).toEqual([name]);
    }
    expect(RunLimitRequest.safeParse({ maxSteps: 1e9 }).success).toBe(false);
    expect(RunLimitRequest.safeParse({ maxStepz: 3 }).success).toBe(false);
  });

  it('leaves limits recorded in a run unbounded, so a run started with larger ones still parses', () => {
    const recorded = {
      agent: defineAgent({ name: 'old', limits: { maxSteps: 5000 } }),
      input: 'hi',
      context: { limits: { maxSteps: 1e9, maxTotalTokens: 1e12 } },
    };
    expect(AgentRunInput.safeParse(recorded).success).toBe(true);
  });
});

describe('the body of POST /runs', () => {
  const body = (over: object) => StartRunBody.safeParse({ agent: 'a', input: 'hi', ...over });
  const paths = (over: object) => body(over).error?.issues.map((i) => i.path.join('.'));

  it('takes rules, limits, model settings, a user and state', () => {
    const parsed = body({
      permissions: [
        { tool: 'bash', pattern: 'rm *', action: 'deny' },
        { tool: '*', action: 'ask' },
      ],
      limits: { maxSteps: 3 },
      modelSettings: { temperature: 0.5, maxTokens: 100 },
      userId: 'u@example.com',
      state: { topic: 'x' },
    });
    expect(parsed.success).toBe(true);
  });

  it('refuses unknown fields at every level, naming them', () => {
    expect(body({ colour: 'red' }).success).toBe(false);
    expect(paths({ modelSettings: { temprature: 1 } })).toEqual(['modelSettings']);
    expect(paths({ permissions: [{ tool: 'x', action: 'ask', when: 'always' }] })).toEqual(['permissions.0']);
    expect(paths({ limits: { maxStepz: 3 } })).toEqual(['limits']);
  });

  it('bounds what a caller can ask for, naming the field', () => {
    expect(paths({ modelSettings: { maxTokens: 1e9 } })).toEqual(['modelSettings.maxTokens']);
    expect(paths({ limits: { maxSteps: 1e9 } })).toEqual(['limits.maxSteps']);
    expect(
      paths({ permissions: Array.from({ length: MAX_RUN_PERMISSIONS + 1 }, () => ({ tool: 'x', action: 'deny' })) }),
    ).toEqual(['permissions']);
    expect(paths({ permissions: [{ tool: 'x', pattern: 'p'.repeat(513), action: 'deny' }] })).toEqual([
      'permissions.0.pattern',
    ]);
    expect(paths({ permissions: [{ tool: 'has space', action: 'deny' }] })).toEqual(['permissions.0.tool']);
    expect(body({ permissions: [{ tool: 'fs__*', pattern: '/etc/*', action: 'deny' }] }).success).toBe(true);
    expect(paths({ permissions: [{ tool: 'x', action: 'maybe' }] })).toEqual(['permissions.0.action']);
    expect(paths({ state: { big: 'x'.repeat(70_000) } })).toEqual(['state']);
    expect(paths({ userId: 'a b' })).toEqual(['userId']);
  });

  it('refuses `allow` rules unless the bridge allows overrides, saying how to enable them', () => {
    const rules = [
      { tool: 'bash', action: 'deny' as const },
      { tool: 'record', action: 'allow' as const },
    ];
    const refusal = expect.objectContaining({
      status: 400,
      code: 'permission_override_refused',
      message: expect.stringMatching(/permissions\.1.*allowPermissionOverrides: true/s),
    });
    expect(() => refuseAllowRules(rules, false)).toThrow(refusal);
    expect(() => refuseAllowRules(rules, true)).not.toThrow();
    expect(() => refuseAllowRules([{ tool: 'bash', action: 'ask' }], false)).not.toThrow();
    expect(() => refuseAllowRules(undefined, false)).not.toThrow();
  });
});
