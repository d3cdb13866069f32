// Approvals and pause (docs/ARCHITECTURE.md: "Workflow agents and operator control", "Approvals") on a real dev server:
// a run paused while it waits for a decision
// counts as parked (the pause update answers), keeps waiting, records an approval given meanwhile, and runs the
// approved tool only after it is resumed.
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { stateQuery } from '../../common/messages';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import {
  askingAgent,
  authData,
  authTrail,
  keyOf,
  recordsOf,
  waitForAsk,
  waitForAuth,
  delegatingAgent,
} from '../helpers/approvals';
import { eventsNow, expectWholeStream, readStream, requestsOf, waitForEvent } from '../helpers/nested-runs';
import { expectParkedIdle } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';

describe('approvals of a paused run', () => {
  const bed = useTestBed({ tools: testTools });

  it('keeps waiting while paused, records an approval given meanwhile, and runs the tool only after resume', async () => {
    const agent = askingAgent('paused-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'after resume' }, { id: 'call_p' })]),
      text('resumed and recorded'),
    );
    const run = await bed.agio.start(agent, 'record something');
    await waitForAsk(bed.client, run.runId, 'call_p');

    // Waiting for a human holds nothing: the pause update answers at once with the run parked.
    const parked = await run.pause({ reason: 'change freeze', by: 'ops' });
    expect(parked).toEqual({ paused: true, parked: true, pausedBy: 'ops', pauseReason: 'change freeze' });
    expect(await run.state()).toMatchObject({
      status: 'running',
      paused: true,
      parked: true,
      pendingApprovals: [{ toolCallId: 'call_p' }],
    });

    expect(await run.approve('call_p', { by: 'alice' })).toEqual({ toolCallId: 'call_p', decision: 'approve' });
    const granted = await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_p');
    expect(authData(granted)).toMatchObject({ by: 'alice', workflowId: run.runId });
    // Approved but paused: the tool waits (and the run still counts as parked).
    await expectParkedIdle(bed.client, [run.runId]);
    expect(recordsOf(run.runId)).toEqual([]);
    expect(await run.state()).toMatchObject({
      paused: true,
      parked: true,
      pendingApprovals: [],
      runningTools: ['call_p'],
    });
    expect(
      (await eventsNow(bed.client, run.runId)).some((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool'),
    ).toBe(false);

    const resumedAt = Date.now();
    expect(await run.resume({ by: 'ops' })).toMatchObject({ paused: false, parked: false });
    const output = await run.result();

    expect(output.response).toBe('resumed and recorded');
    const records = recordsOf(run.runId);
    expect(records.map((r) => r.label)).toEqual(['after resume']);
    expect(records[0].startedAt).toBeGreaterThanOrEqual(resumedAt);
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_p')).toBe('recorded after resume');
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_p'],
      ['TOOL_AUTH_GRANTED', 'call_p'],
    ]);
  });

  it('keeps a paused run waiting for its decision, which a deny given while paused ends without running the tool', async () => {
    const agent = askingAgent('paused-denied-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'never' }, { id: 'call_pd' })]),
      text('denied while paused'),
    );
    const run = await bed.agio.start(agent, 'record something');
    await waitForAsk(bed.client, run.runId, 'call_pd');
    expect(await run.pause({ by: 'ops' })).toMatchObject({ paused: true, parked: true });

    await run.deny('call_pd', { message: 'frozen', by: 'alice' });
    await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_DENIED', 'call_pd');
    // The denial is a tool result; the run then parks at its next safe point (before asking the model again).
    const paused = await waitForEvent(bed.client, run.runId, (e) => e.type === 'RUN_PAUSED');
    expect(paused).toMatchObject({ runId: run.runId, data: { by: 'ops' } });
    expect(requestsOf(bed.server, keyOf(agent))).toHaveLength(1);

    await run.resume({ by: 'ops' });
    expect((await run.result()).response).toBe('denied while paused');
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_pd')).toContain('frozen');
    expect(recordsOf(run.runId)).toEqual([]);
  });

  it('parks a paused tree whose child waits for approval, and runs the approved call only after the tree resumes', async () => {
    const child = askingAgent('paused-child');
    const parent = delegatingAgent('paused-parent', child, 'Records.');
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('paused-child', { task: 'record' }, { id: 'call_kid' })]),
      text('the tree is done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'tree' }, { id: 'call_t' })]),
      text('the child recorded'),
    );
    const run = await bed.agio.start(parent, 'go');
    const childId = `${run.runId}/tool/3-call_kid`;
    await waitForAsk(bed.client, run.runId, 'call_t');

    expect(await run.pause({ by: 'ops' })).toMatchObject({ paused: true, parked: true });
    expect(await bed.client.workflow.getHandle(childId).query(stateQuery)).toMatchObject({
      paused: true,
      parked: true,
      pendingApprovals: [{ toolCallId: 'call_t' }],
    });
    await run.approve('call_t');
    await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_t');
    await expectParkedIdle(bed.client, [run.runId, childId]);
    expect(recordsOf(childId)).toEqual([]);
    expect(await run.state()).toMatchObject({ paused: true, parked: true });

    const resumedAt = Date.now();
    await run.resume({ by: 'ops' });
    expect((await run.result()).response).toBe('the tree is done');
    expect(recordsOf(childId).map((r) => r.label)).toEqual(['tree']);
    expect(recordsOf(childId)[0].startedAt).toBeGreaterThanOrEqual(resumedAt);
  });
});
