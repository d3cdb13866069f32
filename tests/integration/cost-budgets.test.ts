// Cost and cost budgets over HTTP on a real dev server (issue 32, items 3 and 4): priced model calls (gpt-4o-mini at
// $0.15/$0.60 per million tokens) show their cost in a run's state and output; a tree whose root's maxCostUsd is spent
// inside an agent-tool child pauses that child (reason budget, which budget and how much) without calling the model,
// and raising the root's budget resumes it; a tenant's daily budget pauses a run until an admin raises it; a run's
// budget is carried across continue-as-new; a workflow agent root hands a raise down to its paused sub-agent.
import { asTool, defineAgent, sequentialAgent, type AnyAgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { request, type JsonResponse } from '../helpers/bridge';
import { eventsNow } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, subAgent, waitFor } from '../helpers/workflow-agents';

const MODEL = 'gpt-4o-mini';
/** What `prompt` and `completion` tokens of gpt-4o-mini cost, in US dollars. */
const cost = (prompt: number, completion: number) => (prompt * 0.15 + completion * 0.6) / 1_000_000;
const usage = (prompt_tokens: number, completion_tokens: number) => ({ usage: { prompt_tokens, completion_tokens } });

const leaf = defineAgent({ name: 'leaf', model: MODEL, instructions: 'You are the leaf.', tools: ['echo'] });
const top = defineAgent({
  name: 'top',
  model: MODEL,
  instructions: 'You are the top.',
  tools: [asTool(leaf, { description: 'Leaf.' })],
});
const solo = defineAgent({ name: 'solo', model: MODEL, instructions: 'You are solo.', tools: ['echo'] });
const pipeline = sequentialAgent({
  name: 'pipeline',
  subAgents: [subAgent('writer', { model: MODEL, tools: ['echo'] })],
});
const unpriced = defineAgent({ name: 'unpriced', model: 'house-model-1', instructions: 'You are unpriced.' });

const TOKENS =
  'test-token:default,ro-token:default:viewer:read,other-token:beta,tb-token:budgeted,admin-token:ops:root:admin';

describe('cost budgets', () => {
  const bed = useTestBed({ tools: testTools, agents: [top, solo, pipeline, unpriced], bridge: { tokens: TOKENS } });
  const http = (path: string, token: string, body?: unknown) =>
    request(`${bed.bridge.url}${path}`, { token, ...(body !== undefined ? { body } : {}) });
  const start = async (agent: AnyAgentSpec, limits: object, token = 'test-token') => {
    const res = await http('/runs', token, { agent: agent.name, input: 'go', limits });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };
  const stateWhen = (id: string, token: string, what: string, ok: (state: JsonResponse['body']) => boolean) =>
    waitFor(what, async () => {
      const res = await http(`/runs/${encodeURIComponent(id)}/state`, token);
      return res.status === 200 && ok(res.body) ? res.body : undefined;
    });
  const completed = (id: string, token = 'test-token') =>
    waitFor(`run ${id} to complete`, async () => {
      const res = await http(`/runs/${encodeURIComponent(id)}`, token);
      return res.body.status === 'completed' ? res.body : undefined;
    });

  it('pauses a nested run when its root budget is spent, and resumes it when the root budget is raised over HTTP', async () => {
    bed.server.scriptFor(
      'You are the top.',
      toolCalls([toolCall('leaf', { task: 'work' }, { id: 'call_leaf' })], usage(100_000, 10_000)),
      text('top answer', usage(1_000, 100)),
    );
    bed.server.scriptFor(
      'You are the leaf.',
      toolCalls([toolCall('echo', { text: 'hi' }, { id: 'call_echo' })], usage(200_000, 20_000)),
      text('leaf answer', usage(1_000, 100)),
    );
    const rootId = await start(top, { maxCostUsd: 0.05 });
    const rootState = await stateWhen(rootId, 'test-token', 'the root to run its agent tool', (s) => s.children.length);
    expect(rootState.usage.costUsd).toBeCloseTo(cost(100_000, 10_000), 9);
    expect(rootState.maxCostUsd).toBe(0.05);
    const childId = rootState.children[0] as string;
    const spent = cost(100_000, 10_000) + cost(200_000, 20_000); // $0.063 > $0.05
    const paused = await stateWhen(childId, 'test-token', 'the child to pause for the budget', (s) => s.parked);
    expect(paused).toMatchObject({ paused: true, pauseReason: 'budget', pausedBy: 'agio' });
    expect(paused.budget).toEqual({ kind: 'run', limitUsd: 0.05, spentUsd: expect.closeTo(spent, 9) });
    // The leaf's second call never reached the model.
    expect(bed.server.requests).toHaveLength(2);
    const pause = (await eventsNow(bed.client, rootId)).find((e) => e.type === 'RUN_PAUSED');
    expect(pause).toMatchObject({
      runId: childId,
      data: { reason: 'budget', budget: { kind: 'run', limitUsd: 0.05 } },
    });
    // The root's own usage counts its finished children only; the tree's spend so far comes from the ledger.
    expect((await http(`/runs/${rootId}`, 'test-token')).body.cost).toEqual({ treeSpentUsd: expect.closeTo(spent, 9) });
    const live = await http(`/runs/${rootId}/state`, 'test-token');
    expect(live.body.cost).toEqual({
      usd: expect.closeTo(cost(100_000, 10_000), 9),
      treeSpentUsd: expect.closeTo(spent, 9),
    });

    // Bad raises are refused with a clear 400; another tenant's token finds no run.
    for (const maxCostUsd of [-1, 0, 'a lot', 1e12]) {
      const res = await http(`/runs/${rootId}/budget`, 'test-token', { maxCostUsd });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/maxCostUsd/);
    }
    expect((await http(`/runs/${rootId}/budget`, 'other-token', { maxCostUsd: 1 })).status).toBe(404);

    const raised = await http(`/runs/${encodeURIComponent(childId)}/budget`, 'test-token', { maxCostUsd: 1 });
    expect(raised).toMatchObject({ status: 200, body: { runId: rootId, maxCostUsd: 1 } });
    const done = await completed(rootId);
    const total = spent + 2 * cost(1_000, 100);
    expect(done.output.response).toBe('top answer');
    expect(done.output.usage.costUsd).toBeCloseTo(total, 9);
    expect(done.output.usage.costUnknown).toBeUndefined();
    expect(done.cost).toEqual({ usd: expect.closeTo(total, 9) });
    const resumed = (await eventsNow(bed.client, rootId)).find((e) => e.type === 'RUN_RESUMED');
    expect(resumed).toMatchObject({ runId: childId, data: { reason: 'budget raised', by: 'api:default' } });
  });

  it("pauses a run at its tenant's daily budget until an admin raises it", async () => {
    const admin = await http('/tenants/budgeted/budget', 'admin-token', { dailyUsd: 0.01 });
    expect(admin).toMatchObject({ status: 200, body: { tenant: 'budgeted', dailyUsd: 0.01 } });
    expect((await http('/tenants/budgeted/budget', 'tb-token', { dailyUsd: 5 })).status).toBe(403);
    for (const dailyUsd of ['NaN', -5, 1e12]) {
      const bad = await http('/tenants/budgeted/budget', 'admin-token', { dailyUsd });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/dailyUsd/);
    }
    bed.server.scriptFor(
      'You are solo.',
      toolCalls([toolCall('echo', { text: 'hi' }, { id: 'call_1' })], usage(100_000, 10_000)),
      text('solo answer', usage(1_000, 100)),
    );
    const runId = await start(solo, {}, 'tb-token');
    const paused = await stateWhen(runId, 'tb-token', 'the run to pause for its tenant', (s) => s.parked);
    expect(paused.budget).toEqual({
      kind: 'tenant',
      limitUsd: 0.01,
      spentUsd: expect.closeTo(cost(100_000, 10_000), 9),
    });
    const own = await http('/tenants/budgeted/budget', 'tb-token');
    expect(own.body).toMatchObject({ tenant: 'budgeted', dailyUsd: 0.01, spentUsd: expect.closeTo(0.021, 9) });
    expect((await http('/tenants/budgeted/budget', 'test-token')).status).toBe(403);

    const raised = await http('/tenants/budgeted/budget', 'admin-token', { dailyUsd: 1 });
    expect(raised.body).toMatchObject({ dailyUsd: 1, nudgedRuns: 1 });
    expect((await completed(runId, 'tb-token')).output.response).toBe('solo answer');
  });

  it('carries a run budget across continue-as-new, and a resume with a new budget continues the run', async () => {
    bed.server.scriptFor(
      'You are solo.',
      toolCalls([toolCall('echo', { text: 'a' }, { id: 'call_a' })], usage(100_000, 10_000)),
      toolCalls([toolCall('echo', { text: 'b' }, { id: 'call_b' })], usage(100_000, 10_000)),
      text('solo answer', usage(1_000, 100)),
    );
    const runId = await start(solo, { maxCostUsd: 0.03, continueAsNewAfterModelCalls: 1 });
    const paused = await stateWhen(runId, 'test-token', 'the run to pause for its budget', (s) => s.parked);
    expect(paused).toMatchObject({ maxCostUsd: 0.03, modelCalls: 2, budget: { kind: 'run', limitUsd: 0.03 } });
    const executions = await waitFor('continue-as-new', async () => {
      const history = await bed.client.workflow.getHandle(runId).fetchHistory();
      return history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ? history : 0;
    });
    expect(executions).toBeTruthy();
    // Raising a budget is an operator's act: a read-only token of the same tenant may not.
    const refused = await http(`/runs/${runId}/budget`, 'ro-token', { maxCostUsd: 0.5 });
    expect(refused).toMatchObject({ status: 403, body: { error: { scope: 'control' } } });
    const resumed = await http(`/runs/${runId}/resume`, 'test-token', { maxCostUsd: 0.5 });
    expect(resumed.status).toBe(200);
    const done = await completed(runId);
    expect(done.output.usage.costUsd).toBeCloseTo(2 * cost(100_000, 10_000) + cost(1_000, 100), 9);
  });

  it('hands a raise of a workflow agent root down to its paused sub-agent', async () => {
    bed.server.scriptFor(
      agentKey('writer'),
      toolCalls([toolCall('echo', { text: 'a' }, { id: 'call_a' })], usage(100_000, 10_000)),
      toolCalls([toolCall('echo', { text: 'b' }, { id: 'call_b' })], usage(100_000, 10_000)),
      text('written', usage(1_000, 100)),
    );
    const rootId = await start(pipeline, { maxCostUsd: 0.03 });
    const root = await stateWhen(rootId, 'test-token', 'the writer to start', (s) => s.children.length);
    const writer = await stateWhen(root.children[0], 'test-token', 'the writer to pause', (s) => s.parked);
    expect(writer.budget).toEqual({ kind: 'run', limitUsd: 0.03, spentUsd: expect.closeTo(0.042, 9) });
    expect((await http(`/runs/${rootId}/budget`, 'test-token', { maxCostUsd: 0.1 })).status).toBe(200);
    const done = await completed(rootId);
    expect(done.cost).toEqual({ usd: expect.closeTo(0.042 + cost(1_000, 100), 9) });
  });

  it('says the cost is unknown for a model without a price', async () => {
    bed.server.scriptFor('You are unpriced.', text('free answer', usage(1_000, 100)));
    const runId = await start(unpriced, { maxCostUsd: 0.000001 });
    const done = await completed(runId);
    expect(done.output.usage).toMatchObject({ costUnknown: true, totalTokens: 1_100 });
    expect(done.output.usage.costUsd).toBeUndefined();
    expect(done.cost).toEqual({ usd: 0, unknownPrice: true });
  });
});
