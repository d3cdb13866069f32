// Permission rules (docs/ARCHITECTURE.md, "Approvals") on a real dev server: an allowed call of the same turn runs
// while another waits for approval; `remember` stops asking for that exact call for the rest of the run but never lifts
// a deny; a deny pattern blocks `rm -rf` before anything runs while `ls` runs; per-run rules come before the agent's; a
// call id the model reuses in a later turn asks, and is decided, again.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, sentToolResult, startRun } from '../helpers/agent-runs';
import { askingAgent, authData, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { expectWholeStream, readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

describe('tool permission rules', () => {
  const bed = useTestBed({ tools: testTools });

  it('runs the allowed call of a turn to completion while the other call of the turn waits for approval', async () => {
    const agent = askingAgent('parallel-asker', {
      tools: ['record', 'echo'],
      permissions: [{ tool: 'echo', action: 'ask' }],
    });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([
        toolCall('echo', { text: 'needs a yes' }, { id: 'call_echo' }),
        toolCall('record', { label: 'allowed' }, { id: 'call_free' }),
      ]),
      text('both done'),
    );
    const run = await bed.agio.start(agent, 'do both');
    await waitForAsk(bed.client, run.runId, 'call_echo');

    const [allowed] = await waitFor(
      'the allowed record call to run',
      () => recordsOf(run.runId).length === 1 && recordsOf(run.runId),
    );
    const approvedAt = Date.now();
    expect(allowed.endedAt).toBeLessThanOrEqual(approvedAt);
    expect(await run.state()).toMatchObject({ pendingApprovals: [{ toolCallId: 'call_echo', tool: 'echo' }] });
    await run.approve('call_echo');
    const output = await run.result();

    expect(output.response).toBe('both done');
    const second = requestsOf(bed.server, keyOf(agent))[1];
    expect(sentToolResult(second, 'call_echo')).toBe('needs a yes');
    expect(sentToolResult(second, 'call_free')).toBe('recorded allowed');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['allowed']);
    expect(authTrail(await readStream(bed.client, run.runId))).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_echo'],
      ['TOOL_AUTH_GRANTED', 'call_echo'],
    ]);
    // In the history, the allowed activity completed before the approval was even accepted.
    const history = (await run.workflow.fetchHistory()).events ?? [];
    const completed = history.findIndex((e) => e.activityTaskCompletedEventAttributes);
    const accepted = history.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(completed).toBeGreaterThan(-1);
    expect(completed).toBeLessThan(accepted);
  });

  it('stops asking for the same call once it was approved with remember, but a matching deny still wins', async () => {
    const agent = askingAgent('remembering-asker', {
      permissions: [
        { tool: 'record', pattern: '*forbidden*', action: 'deny' },
        { tool: 'record', action: 'ask' },
      ],
    });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'first' }, { id: 'call_1' })]),
      toolCalls([toolCall('record', { label: 'first' }, { id: 'call_2' })]),
      toolCalls([toolCall('record', { label: 'forbidden' }, { id: 'call_3' })]),
      text('remembered'),
    );
    const run = await bed.agio.start(agent, 'record three times');
    await waitForAsk(bed.client, run.runId, 'call_1');

    await run.approve('call_1', { remember: true, by: 'alice' });
    const output = await run.result();

    expect(output.response).toBe('remembered');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['first', 'first']);
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_1'],
      ['TOOL_AUTH_GRANTED', 'call_1'],
      ['TOOL_AUTH_DENIED', 'call_3'],
    ]);
    expect(authData(events.find((e) => e.type === 'TOOL_AUTH_GRANTED')!)).toMatchObject({
      remember: true,
      by: 'alice',
    });
    expect(authData(events.find((e) => e.type === 'TOOL_AUTH_DENIED')!)).toMatchObject({ reason: 'rule' });
    const requests = requestsOf(bed.server, keyOf(agent));
    expect(sentToolResult(requests[2], 'call_2')).toBe('recorded first');
    expect(sentToolResult(requests[3], 'call_3')).toMatch(/not permitted.*forbidden/);
  });

  describe('with a deny pattern for `rm -rf` and an allow for the rest of bash', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-approvals-victim-'));
      await fs.writeFile(path.join(dir, 'precious.txt'), 'keep me');
    });
    afterEach(() => fs.rm(dir, { recursive: true, force: true }));

    it('never runs `rm -rf` (the file it would delete survives) and runs `ls` without asking', async () => {
      const agent = askingAgent('careful-shell', {
        tools: ['bash'],
        permissions: [
          { tool: 'bash', pattern: 'rm -rf*', action: 'deny' },
          { tool: 'bash', action: 'allow' },
        ],
      });
      bed.server.scriptFor(
        keyOf(agent),
        toolCalls([toolCall('bash', { command: `rm -rf ${dir}` }, { id: 'call_rm' })]),
        toolCalls([toolCall('bash', { command: 'ls -d /workspace' }, { id: 'call_ls' })]),
        text('the file is still there'),
      );
      const run = await bed.agio.start(agent, 'clean up');
      const output = await run.result();

      expect(output.response).toBe('the file is still there');
      expect(await fs.readFile(path.join(dir, 'precious.txt'), 'utf8')).toBe('keep me');
      const requests = requestsOf(bed.server, keyOf(agent));
      expect(sentToolResult(requests[1], 'call_rm')).toMatch(
        /^Error: calling "bash" with these arguments is not permitted \(rule: rm -rf\*\)/,
      );
      expect(sentToolResult(requests[2], 'call_ls')).toBe('/workspace\nexit code: 0');
      expect(output.steps.find((s) => s.toolCallId === 'call_rm' && s.role === 'tool')).toMatchObject({
        isError: true,
        metadata: { permission: 'denied' },
      });
      // One bash activity only: the `ls`.
      expect(activities(await run.workflow.fetchHistory(), 'runTool').map((a) => a.completed)).toEqual([true]);
      const events = await readStream(bed.client, run.runId);
      expect(authTrail(events)).toEqual([['TOOL_AUTH_DENIED', 'call_rm']]);
      expect(authData(events.find((e) => e.type === 'TOOL_AUTH_DENIED')!)).toMatchObject({
        reason: 'rule',
        rule: { tool: 'bash', pattern: 'rm -rf*', action: 'deny' },
      });
    });
  });

  it("asks when the run's own rules say ask although the agent allows the tool", async () => {
    const agent = askingAgent('overridden-agent', { permissions: [{ tool: 'record', action: 'allow' }] });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'overridden' }, { id: 'call_ov' })]),
      text('asked after all'),
    );
    const handle = await startRun(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'record',
      context: { permissions: [{ tool: 'record', action: 'ask' }] },
    });
    await waitForAsk(bed.client, handle.workflowId, 'call_ov');
    expect(recordsOf(handle.workflowId)).toEqual([]);

    await bed.agio.getHandle(handle.workflowId).deny('call_ov', { message: 'the run says no' });

    expect((await handle.result()).response).toBe('asked after all');
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_ov')).toContain('the run says no');
    expect(recordsOf(handle.workflowId)).toEqual([]);
  });

  it('asks again for a call id the model reuses in a later turn, and that call can be decided', async () => {
    const agent = askingAgent('reusing-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'first' }, { id: 'call_0' })]),
      toolCalls([toolCall('record', { label: 'again' }, { id: 'call_0' })]),
      text('reused'),
    );
    const run = await bed.agio.start(agent, 'record twice');
    await waitForAsk(bed.client, run.runId, 'call_0');
    await run.approve('call_0');
    await waitFor('call_0 to ask again in the second turn', async () => {
      const state = await run.state();
      return state.toolCalls === 1 && state.pendingApprovals.length === 1;
    });

    expect(await run.approve('call_0')).toEqual({ toolCallId: 'call_0', decision: 'approve' });

    expect((await run.result()).response).toBe('reused');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['first', 'again']);
    expect(authTrail(await readStream(bed.client, run.runId))).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_0'],
      ['TOOL_AUTH_GRANTED', 'call_0'],
      ['TOOL_AUTH_REQUIRED', 'call_0'],
      ['TOOL_AUTH_GRANTED', 'call_0'],
    ]);
  });
});
