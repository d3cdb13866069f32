// Approvals inside nested agents (docs/ARCHITECTURE.md: "Nested runs", "Approvals") on a real dev server: a call that
// asks in a grandchild surfaces in the root's stream with the grandchild's workflow id and is decided through the root
// run id (HTTP and AgioClient), which routes the update to the grandchild; per-run rules reach nested runs; an agent
// tool that streams nothing but its start and end still surfaces its approvals.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { asTool, defineAgent, type AgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { decideToolCallUpdate, stateQuery } from '../../common/messages';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult, startRun } from '../helpers/agent-runs';
import { askingAgent, authData, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { eventsOf, expectWholeStream, readStream, requestsOf, waitForEvent } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';

/** An agent that delegates to `child` (offered as a tool under the child's name). */
function delegating(name: string, child: AgentSpec, stream: 'full' | 'none' = 'full'): AgentSpec {
  return defineAgent({
    name,
    instructions: `You are ${name}.`,
    tools: [asTool(child, { description: `Delegates to ${child.name}.`, stream })],
  });
}

describe('approvals in nested agents', () => {
  // The bridge records its token's identity as `by`.
  const bed = useTestBed({ tools: testTools, bridge: { tokens: `${TOKEN}:default:http-user` } });

  it('surfaces an approval asked at depth 2 in the root stream, decides it through the root run id, and completes the tree', async () => {
    const c = askingAgent('nested-c');
    const b = delegating('nested-b', c);
    const a = delegating('nested-a', b);
    bed.server.scriptFor(
      keyOf(a),
      toolCalls([toolCall('nested-b', { task: 'ask C' }, { id: 'call_b' })]),
      text('A is done'),
    );
    bed.server.scriptFor(
      keyOf(b),
      toolCalls([toolCall('nested-c', { task: 'record twice' }, { id: 'call_c' })]),
      text('B is done'),
    );
    bed.server.scriptFor(
      keyOf(c),
      toolCalls([toolCall('record', { label: 'by http' }, { id: 'call_r1' })]),
      toolCalls([toolCall('record', { label: 'by client' }, { id: 'call_r2' })]),
      text('C is done'),
    );
    const run = await bed.bridge.agio.start(a, 'go deep');
    const cId = `${run.runId}/tool/3-call_b/tool/3-call_c`;

    const asked = await waitForAsk(bed.client, run.runId, 'call_r1');
    expect(asked).toMatchObject({
      runId: cId,
      depth: 2,
      parentRunId: `${run.runId}/tool/3-call_b`,
      data: { workflowId: cId, runId: cId, toolCallId: 'call_r1', tool: 'record', args: { label: 'by http' } },
    });
    expect(await bed.client.workflow.getHandle(cId).query(stateQuery)).toMatchObject({
      status: 'running',
      pendingApprovals: [{ toolCallId: 'call_r1', tool: 'record', workflowId: cId }],
    });
    expect(await run.state()).toMatchObject({ pendingApprovals: [], children: [`${run.runId}/tool/3-call_b`] });
    // The root does not own the call: an update sent to it straight is rejected, and nothing is decided.
    const straight = await run.workflow
      .executeUpdate(decideToolCallUpdate, { args: [{ toolCallId: 'call_r1', decision: 'approve' }] })
      .catch((e: unknown) => e);
    expect(straight).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((straight as WorkflowUpdateFailedError).cause?.message).toMatch(/no tool call "call_r1" is waiting/);

    const byHttp = await request(`${bed.bridge.url}/runs/${run.runId}/tool-calls/call_r1/approve`, {
      token: TOKEN,
      body: {},
    });
    expect(byHttp).toEqual({ status: 200, body: { toolCallId: 'call_r1', decision: 'approve' } });
    await waitForAsk(bed.client, run.runId, 'call_r2');
    expect(await bed.client.workflow.getHandle(cId).query(stateQuery)).toMatchObject({
      pendingApprovals: [{ toolCallId: 'call_r2', workflowId: cId }],
    });
    expect(await bed.bridge.agio.getHandle(run.runId).approve('call_r2', { by: 'client-user' })).toEqual({
      toolCallId: 'call_r2',
      decision: 'approve',
    });
    const output = await run.result();

    expect(output.response).toBe('A is done');
    expect(recordsOf(cId).map((r) => r.label)).toEqual(['by http', 'by client']);
    expect(sentToolResult(requestsOf(bed.server, keyOf(c))[2], 'call_r2')).toBe('recorded by client');
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_r1'],
      ['TOOL_AUTH_GRANTED', 'call_r1'],
      ['TOOL_AUTH_REQUIRED', 'call_r2'],
      ['TOOL_AUTH_GRANTED', 'call_r2'],
    ]);
    expect(
      events
        .filter((e) => e.type.startsWith('TOOL_AUTH_'))
        .every((e) => e.runId === cId && authData(e).workflowId === cId),
    ).toBe(true);
    expect(events.filter((e) => e.type === 'TOOL_AUTH_GRANTED').map((e) => authData(e).by)).toEqual([
      'http-user',
      'client-user',
    ]);
    expect(eventsOf(events, cId).at(-1)).toMatchObject({ type: 'RUN_COMPLETED', data: { response: 'C is done' } });
  });

  it("applies the root run's own rules to nested runs", async () => {
    const child = defineAgent({ name: 'rule-child', instructions: 'You are rule-child.', tools: ['record'] });
    const parent = delegating('rule-parent', child);
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('rule-child', { task: 'record' }, { id: 'call_child' })]),
      text('the parent is done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'nested' }, { id: 'call_nested' })]),
      text('the child was told no'),
    );
    const handle = await startRun(bed.client, bed.worker.taskQueue, {
      agent: parent,
      input: 'go',
      context: { permissions: [{ tool: 'record', action: 'ask' }] },
    });
    const childId = `${handle.workflowId}/tool/3-call_child`;

    const asked = await waitForAsk(bed.client, handle.workflowId, 'call_nested');
    expect(authData(asked).workflowId).toBe(childId);
    await bed.bridge.agio.getHandle(handle.workflowId).deny('call_nested', { message: 'not in this run' });

    expect((await handle.result()).response).toBe('the parent is done');
    expect(sentToolResult(requestsOf(bed.server, keyOf(child))[1], 'call_nested')).toContain('not in this run');
    expect(recordsOf(childId)).toEqual([]);
  });

  it('routes a decision to the nested run now waiting when its parent already used the same call id', async () => {
    const child = askingAgent('dup-child');
    const parent = askingAgent('dup-parent', { tools: ['record', asTool(child, { description: 'Records too.' })] });
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('record', { label: 'parent' }, { id: 'call_dup' })]),
      toolCalls([toolCall('dup-child', { task: 'record' }, { id: 'call_kid' })]),
      text('both recorded'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'child' }, { id: 'call_dup' })]),
      text('the child recorded'),
    );
    const run = await bed.bridge.agio.start(parent, 'go');
    const childId = `${run.runId}/tool/5-call_kid`;
    await waitForAsk(bed.client, run.runId, 'call_dup');
    await run.approve('call_dup');

    const childAsked = await waitForEvent(
      bed.client,
      run.runId,
      (e) => e.type === 'TOOL_AUTH_REQUIRED' && e.runId === childId,
    );
    expect(authData(childAsked)).toMatchObject({ toolCallId: 'call_dup', workflowId: childId });
    expect(await run.approve('call_dup', { by: 'second' })).toEqual({ toolCallId: 'call_dup', decision: 'approve' });

    expect((await run.result()).response).toBe('both recorded');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['parent']);
    expect(recordsOf(childId).map((r) => r.label)).toEqual(['child']);
    // Both calls are decided now: a third decision is rejected by the latest owner.
    expect(
      await request(`${bed.bridge.url}/runs/${run.runId}/tool-calls/call_dup/approve`, { token: TOKEN, body: {} }),
    ).toMatchObject({ status: 409, body: { error: { code: 'decision_rejected' } } });
  });

  it("surfaces and decides an approval inside an agent tool with stream 'none'", async () => {
    const quiet = askingAgent('quiet-child');
    const parent = delegating('quiet-parent', quiet, 'none');
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('quiet-child', { task: 'record quietly' }, { id: 'call_quiet' })]),
      text('the parent heard back'),
    );
    bed.server.scriptFor(
      keyOf(quiet),
      toolCalls([toolCall('record', { label: 'quiet' }, { id: 'call_q' })]),
      text('quietly recorded'),
    );
    const run = await bed.bridge.agio.start(parent, 'go');
    const childId = `${run.runId}/tool/3-call_quiet`;

    const asked = await waitForAsk(bed.client, run.runId, 'call_q');
    expect(authData(asked)).toMatchObject({ workflowId: childId, tool: 'record' });
    expect(await run.approve('call_q')).toEqual({ toolCallId: 'call_q', decision: 'approve' });

    expect((await run.result()).response).toBe('the parent heard back');
    expect(recordsOf(childId).map((r) => r.label)).toEqual(['quiet']);
    const child = eventsOf(await readStream(bed.client, run.runId), childId);
    // Nothing of the child but its start and end, and its approval trail.
    expect(child.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TOOL_AUTH_REQUIRED',
      'TOOL_AUTH_GRANTED',
      'RUN_COMPLETED',
    ]);
  });
});
