// The agent loop's pure decisions: what follows a model step (decideNext), and how a run's context, its
// instructions and its first conversation are built from the input (run-context).
import {
  asTool,
  defineAgent,
  loopAgent,
  resolveLimits,
  sequentialAgent,
  type AgentToolSpec,
  type AnyAgentSpec,
  type RunContext,
  type RunLimits,
  type Step,
  type Usage,
} from '../../common';
import { decideNext, spentBudget } from '../../workflows/agent-loop/decisions';
import { childContext, tokensLeft } from '../../workflows/nesting/child-context';
import { buildRunContext, initialMessages, renderInstructions } from '../../workflows/lifecycle/run-context';

function assistant(content: string | null, toolCalls?: Step['toolCalls']): Step {
  return { id: 'r:1', runId: 'r', index: 1, role: 'assistant', content, ...(toolCalls ? { toolCalls } : {}) };
}

const call = { id: 'c1', name: 'ls', arguments: '{}' };
const usage = (totalTokens: number): Usage => ({ promptTokens: totalTokens, completionTokens: 0, totalTokens });
const limits = (over: Partial<RunLimits> = {}): RunLimits => resolveLimits(over);

describe('decideNext', () => {
  it('ends with the step content as the response when the model calls no tools', () => {
    expect(decideNext(assistant('done'), 1, usage(10), limits())).toEqual({ kind: 'final_output', response: 'done' });
  });

  it('treats an empty tool-call list as a final answer, and null content as an empty response', () => {
    expect(decideNext(assistant(null, []), 1, usage(10), limits())).toEqual({ kind: 'final_output', response: '' });
  });

  it('runs the tools while steps and tokens remain', () => {
    expect(decideNext(assistant(null, [call]), 1, usage(10), limits({ maxSteps: 3, maxTotalTokens: 100 }))).toEqual({
      kind: 'run_tools',
    });
  });

  it('stops with max_steps once the model calls reach maxSteps', () => {
    expect(decideNext(assistant(null, [call]), 2, usage(0), limits({ maxSteps: 3 }))).toEqual({ kind: 'run_tools' });
    expect(decideNext(assistant(null, [call]), 3, usage(0), limits({ maxSteps: 3 }))).toEqual({ kind: 'max_steps' });
    expect(decideNext(assistant(null, [call]), 4, usage(0), limits({ maxSteps: 3 }))).toEqual({ kind: 'max_steps' });
  });

  it('stops with max_tokens once the usage reaches maxTotalTokens, before checking steps', () => {
    expect(decideNext(assistant(null, [call]), 1, usage(99), limits({ maxTotalTokens: 100 }))).toEqual({
      kind: 'run_tools',
    });
    expect(decideNext(assistant(null, [call]), 1, usage(100), limits({ maxTotalTokens: 100 }))).toEqual({
      kind: 'max_tokens',
    });
    expect(decideNext(assistant(null, [call]), 10, usage(500), limits({ maxSteps: 10, maxTotalTokens: 100 }))).toEqual({
      kind: 'max_tokens',
    });
  });

  it('has no token limit when maxTotalTokens is unset', () => {
    expect(decideNext(assistant(null, [call]), 1, usage(10_000_000), limits())).toEqual({ kind: 'run_tools' });
  });

  it('returns the final answer even when the budgets are spent', () => {
    expect(decideNext(assistant('answer'), 99, usage(10_000), limits({ maxSteps: 2, maxTotalTokens: 10 }))).toEqual({
      kind: 'final_output',
      response: 'answer',
    });
  });
});

describe('buildRunContext', () => {
  const agent = defineAgent({ name: 'researcher', instructions: 'x' });
  const defaults = resolveLimits();

  it('fills a root run from its workflow id with default limits, tenant, depth, lineage and workspace', () => {
    expect(buildRunContext(agent, undefined, 'run-1')).toMatchObject({
      runId: 'run-1',
      rootRunId: 'run-1',
      depth: 0,
      lineage: ['researcher'],
      tenant: 'default',
      workspace: 'runs/run-1',
      limits: defaults,
    });
    expect(buildRunContext(agent, undefined, 'run-1').limits).toEqual(defaults);
  });

  it('derives the workspace from the root run id with unsafe characters replaced', () => {
    expect(buildRunContext(agent, undefined, 'a/b c').workspace).toBe('runs/a_b_c');
    expect(buildRunContext(agent, { rootRunId: 'root/1' }, 'child').workspace).toBe('runs/root_1');
  });

  it('keeps what a parent passes: root id, depth, lineage, tenant, workspace, ids — but the run id is its own', () => {
    const passed = {
      rootRunId: 'root',
      parentRunId: 'parent',
      depth: 2,
      lineage: ['a', 'b'],
      tenant: 't1',
      workspace: 'runs/root',
      toolCallId: 'tc',
      sessionId: 's',
      userId: 'u',
    };
    const ctx = buildRunContext(agent, { runId: 'ignored', ...passed }, 'child-1');
    expect(ctx).toMatchObject({ runId: 'child-1', ...passed });
  });

  it('keeps an explicitly empty lineage instead of replacing it with the agent name', () => {
    expect(buildRunContext(agent, { lineage: [] }, 'r').lineage).toEqual([]);
  });

  it('applies the agent’s limits over the defaults', () => {
    const a = defineAgent({ name: 'a', limits: { maxDepth: 2, maxToolOutputBytes: 1000 } });
    expect(buildRunContext(a, undefined, 'r').limits).toEqual({ ...defaults, maxDepth: 2, maxToolOutputBytes: 1000 });
  });

  it('lets the agent’s maxSteps win over its limits.maxSteps', () => {
    const a = defineAgent({ name: 'a', maxSteps: 4, limits: { maxSteps: 7 } });
    expect(buildRunContext(a, undefined, 'r').limits.maxSteps).toBe(4);
  });

  it('applies the run’s own limits over the agent’s, leaving the others as the agent set them', () => {
    const a = defineAgent({ name: 'a', maxSteps: 4, limits: { maxDepth: 2, modelMaxAttempts: 3 } });
    const ctx = buildRunContext(a, { limits: { maxSteps: 9, maxTotalTokens: 500 } }, 'r');
    expect(ctx.limits).toEqual({ ...defaults, maxSteps: 9, maxTotalTokens: 500, maxDepth: 2, modelMaxAttempts: 3 });
  });

  it('does not reset the agent’s limits to defaults when the run overrides other limits', () => {
    const a = defineAgent({ name: 'a', limits: { modelTimeoutMs: 5000 } });
    expect(buildRunContext(a, { limits: { maxDepth: 1 } }, 'r').limits.modelTimeoutMs).toBe(5000);
  });
});

describe('renderInstructions', () => {
  it('replaces placeholders whose keys are in the state', () => {
    expect(renderInstructions('Hello {name}, you work on {project}.', { name: 'Ada', project: 'Agio' })).toBe(
      'Hello Ada, you work on Agio.',
    );
  });

  it('leaves placeholders with missing keys as written', () => {
    expect(renderInstructions('Hello {name}, {missing} stays.', { name: 'Ada' })).toBe('Hello Ada, {missing} stays.');
    expect(renderInstructions('Only {missing}.')).toBe('Only {missing}.');
  });

  it('writes non-string values as JSON', () => {
    expect(
      renderInstructions('n={n} b={b} o={o} a={a} z={z}', { n: 3, b: true, o: { k: 'v' }, a: [1, 2], z: null }),
    ).toBe('n=3 b=true o={"k":"v"} a=[1,2] z=null');
  });

  it('accepts dotted and dashed keys as literal keys', () => {
    expect(renderInstructions('{user.name} / {user-id}', { 'user.name': 'ada', 'user-id': 'u1' })).toBe('ada / u1');
  });

  it('does not touch braces that are not placeholders (JSON examples, empty braces)', () => {
    const template = 'Answer as {"answer": "..."} or {} or { name }.';
    expect(renderInstructions(template, { answer: 'x', name: 'y' })).toBe(template);
  });

  it('does not treat inherited object properties as state keys', () => {
    expect(renderInstructions('{constructor} {toString} {__proto__}', {})).toBe('{constructor} {toString} {__proto__}');
  });
});

describe('initialMessages', () => {
  it('starts with the instructions as a system message, then the user input', () => {
    expect(initialMessages('Be brief.', 'hi')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('has no system message when there are no instructions', () => {
    expect(initialMessages('', 'hi')).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('appends a prepared conversation after the system message, unchanged', () => {
    const conversation = [
      { role: 'user' as const, content: 'q' },
      { role: 'assistant' as const, content: null, toolCalls: [call] },
      { role: 'tool' as const, content: 'out', toolCallId: 'c1', name: 'ls' },
    ];
    expect(initialMessages('sys', conversation)).toEqual([{ role: 'system', content: 'sys' }, ...conversation]);
  });
});

describe('the token budget of a tree', () => {
  const limits = (maxTotalTokens?: number): RunLimits =>
    resolveLimits(maxTotalTokens === undefined ? {} : { maxTotalTokens });

  it('counts as spent once usage reaches the limit, and never without a limit', () => {
    expect(spentBudget({ promptTokens: 60, completionTokens: 39, totalTokens: 99 }, limits(100))).toBe(false);
    expect(spentBudget({ promptTokens: 60, completionTokens: 40, totalTokens: 100 }, limits(100))).toBe(true);
    expect(spentBudget({ promptTokens: 10 ** 9, completionTokens: 0, totalTokens: 10 ** 9 }, limits())).toBe(false);
  });

  it('gives what is left of it to a child, at least 1, and nothing without a limit', () => {
    expect(tokensLeft(limits(100), 30)).toBe(70);
    expect(tokensLeft(limits(100), 250)).toBe(1);
    expect(tokensLeft(limits(), 30)).toBeUndefined();
  });

  it('splits what is left evenly among children that run at once, so together they stay within it', () => {
    expect(tokensLeft(limits(100), 30, 2)).toBe(35);
    expect(tokensLeft(limits(100), 0, 3)).toBe(33);
    expect(3 * tokensLeft(limits(100), 0, 3)!).toBeLessThanOrEqual(100);
    expect(tokensLeft(limits(100), 99, 4)).toBe(1);
    expect(tokensLeft(limits(100), 30, 0)).toBe(70);
    expect(tokensLeft(limits(), 30, 5)).toBeUndefined();
  });

  it("lowers what is left by the child agent's own, smaller limit only", () => {
    const parent = buildRunContext(defineAgent({ name: 'parent' }), { limits: { maxTotalTokens: 100 } }, 'root');
    const child = (own?: number) =>
      asTool(defineAgent({ name: 'child', ...(own ? { limits: { maxTotalTokens: own } } : {}) }), {
        description: 'A child.',
      });
    expect(agentToolContext(parent, child(), 40).limits.maxTotalTokens).toBe(60);
    expect(agentToolContext(parent, child(1000), 40).limits.maxTotalTokens).toBe(60);
    expect(agentToolContext(parent, child(25), 40).limits.maxTotalTokens).toBe(25);
    expect(agentToolContext(parent, child(), 40, 3).limits.maxTotalTokens).toBe(20);
    expect(agentToolContext(parent, child(15), 40, 3).limits.maxTotalTokens).toBe(15);
    expect(
      subAgentContext(parent, defineAgent({ name: 'sub', limits: { maxTotalTokens: 15 } }), 40, 3).limits
        .maxTotalTokens,
    ).toBe(15);
  });
});

describe('the step budget of a child run', () => {
  const defaultSteps = resolveLimits().maxSteps;
  const own = defineAgent({ name: 'own', maxSteps: 7 });
  const ownInLimits = defineAgent({ name: 'own_in_limits', limits: { maxSteps: 6 } });
  const none = defineAgent({ name: 'none' });

  it("gives an agent called as a tool its own maxSteps, else the default: never its caller's budget", () => {
    const caller = buildRunContext(defineAgent({ name: 'caller', maxSteps: 3 }), undefined, 'root');
    const tool = (agent: typeof own) => asTool(agent, { description: 'A child.' });
    expect(agentToolContext(caller, tool(own)).limits.maxSteps).toBe(7);
    expect(agentToolContext(caller, tool(ownInLimits)).limits.maxSteps).toBe(6);
    expect(agentToolContext(caller, tool(none)).limits.maxSteps).toBe(defaultSteps);
  });

  it("gives a workflow agent's sub-agent its own maxSteps, else the step limit of the workflow agent, which takes no steps itself", () => {
    const loop = buildRunContext(
      loopAgent({ name: 'loop', subAgents: [own, none], limits: { maxSteps: 3 } }),
      undefined,
      'root',
    );
    expect(subAgentContext(loop, own).limits.maxSteps).toBe(7);
    expect(subAgentContext(loop, ownInLimits).limits.maxSteps).toBe(6);
    expect(subAgentContext(loop, none).limits.maxSteps).toBe(3);
    const inner = subAgentContext(loop, sequentialAgent({ name: 'inner', subAgents: [none] }));
    expect(subAgentContext(inner, none).limits.maxSteps).toBe(3);
    const started = buildRunContext(
      loopAgent({ name: 'plain', subAgents: [none] }),
      { limits: { maxSteps: 4 } },
      'root',
    );
    expect(subAgentContext(started, none).limits.maxSteps).toBe(4);
  });
});

function agentToolContext(parent: RunContext, tool: AgentToolSpec, spentTokens?: number, shares?: number): RunContext {
  const nesting = { type: 'agent_tool', toolCallId: 'call_1', stream: tool.stream } as const;
  return childContext(parent, { runId: `${parent.runId}/tool/call_1`, spec: tool.agent, nesting, spentTokens, shares });
}

function subAgentContext(parent: RunContext, spec: AnyAgentSpec, spentTokens?: number, shares?: number): RunContext {
  return childContext(parent, {
    runId: `${parent.runId}/seq/0-${spec.name}`,
    spec,
    nesting: { type: 'workflow_agent' },
    spentTokens,
    shares,
  });
}
