// Human approval of tool calls (docs/ARCHITECTURE.md, "Approvals") on a real dev server: an `ask` rule publishes
// TOOL_AUTH_REQUIRED and the run waits; a decision through the HTTP bridge (or the Temporal CLI) lets the tool run
// once or gives the model the denial; no decision in time is a denial; a second or unknown decision is rejected
// and runs nothing; another tenant cannot decide.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { RunOutput } from '../../common';
import { findBinary } from '../../devkit/install-binary';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { decideToolCallUpdate, stateQuery } from '../../common/messages';
import { testTools } from '../fixtures/test-tools';
import { activities, sentToolResult } from '../helpers/agent-runs';
import { askingAgent, authData, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { expectWholeStream, readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';

const TOKEN = 'test-token';
const execFileAsync = promisify(execFile);

describe('tool approvals', () => {
  const bed = useTestBed({
    tools: testTools,
    // Decisions over HTTP record the token's identity as `by`.
    bridge: { tokens: `${TOKEN}:default:alice,bob-token:default:bob,token-a:tenant-a,token-b:tenant-b` },
  });

  const decide = (runId: string, callId: string, decision: 'approve' | 'deny', body: object = {}, token = TOKEN) =>
    request(
      `${bed.bridge.url}/runs/${encodeURIComponent(runId)}/tool-calls/${encodeURIComponent(callId)}/${decision}`,
      { token, body },
    );

  it('asks before an `ask` tool runs, runs it exactly once after an approval over HTTP, and completes', async () => {
    const agent = askingAgent('approved-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'after approval' }, { id: 'call_rec' })]),
      text('recorded it'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something');

    const asked = await waitForAsk(bed.client, run.runId, 'call_rec');
    expect(asked).toMatchObject({
      runId: run.runId,
      depth: 0,
      data: {
        workflowId: run.runId,
        runId: run.runId,
        toolCallId: 'call_rec',
        tool: 'record',
        args: { label: 'after approval' },
        reason: '"record" requires approval',
      },
    });
    expect(await run.state()).toMatchObject({
      status: 'running',
      pendingApprovals: [{ toolCallId: 'call_rec', tool: 'record', workflowId: run.runId }],
    });
    expect(recordsOf(run.runId)).toEqual([]);

    const approvedAt = Date.now();
    expect(await decide(run.runId, 'call_rec', 'approve')).toEqual({
      status: 200,
      body: { toolCallId: 'call_rec', decision: 'approve' },
    });
    const output = await run.result();

    expect(output.response).toBe('recorded it');
    const records = recordsOf(run.runId);
    expect(records.map((r) => r.label)).toEqual(['after approval']);
    expect(records[0].startedAt).toBeGreaterThanOrEqual(approvedAt);
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_rec')).toBe('recorded after approval');
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_rec'],
      ['TOOL_AUTH_GRANTED', 'call_rec'],
    ]);
    expect(authData(events.find((e) => e.type === 'TOOL_AUTH_GRANTED')!)).toEqual({
      workflowId: run.runId,
      runId: run.runId,
      toolCallId: 'call_rec',
      tool: 'record',
      by: 'alice',
      remember: false,
    });
    expect(events.findIndex((e) => e.type === 'TOOL_AUTH_GRANTED')).toBeLessThan(
      events.findIndex((e) => e.snapshot?.toolCallId === 'call_rec' && e.snapshot.role === 'tool'),
    );
    expect(activities(await run.workflow.fetchHistory(), 'runTool').map((a) => a.completed)).toEqual([true]);
  });

  it('gives the model the message of a denial over HTTP as the tool result and never runs the tool', async () => {
    const agent = askingAgent('denied-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'never' }, { id: 'call_no' })]),
      text('understood, not recording'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something');
    await waitForAsk(bed.client, run.runId, 'call_no');

    const denied = await decide(run.runId, 'call_no', 'deny', { message: 'not during the audit' }, 'bob-token');
    expect(denied).toEqual({ status: 200, body: { toolCallId: 'call_no', decision: 'deny' } });
    const output = await run.result();

    expect(output.response).toBe('understood, not recording');
    const result = sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_no');
    expect(result).toContain('not during the audit');
    expect(result).toMatch(/denied by bob/);
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_no'],
      ['TOOL_AUTH_DENIED', 'call_no'],
    ]);
    expect(authData(events.find((e) => e.type === 'TOOL_AUTH_DENIED')!)).toMatchObject({
      reason: 'denied',
      by: 'bob',
      message: 'not during the audit',
      workflowId: run.runId,
    });
    expect(output.steps.find((s) => s.toolCallId === 'call_no' && s.role === 'tool')).toMatchObject({
      isError: true,
      metadata: { permission: 'denied' },
    });
    expect(recordsOf(run.runId)).toEqual([]);
    expect(activities(await run.workflow.fetchHistory(), 'runTool')).toEqual([]);
  });

  it('denies a call nobody decides within approvalTimeoutMs with reason "timeout", which the model sees', async () => {
    const agent = askingAgent('impatient-asker', { approvalTimeoutMs: 1500 });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'too late' }, { id: 'call_late' })]),
      text('nobody answered'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something');

    const output = await run.result();

    expect(output.response).toBe('nobody answered');
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    // Runs since the inbox patch say the approval expired (action deny) before the denial.
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_late'],
      ['TOOL_AUTH_EXPIRED', 'call_late'],
      ['TOOL_AUTH_DENIED', 'call_late'],
    ]);
    const [asked, expired, denied] = events.filter((e) => e.type.startsWith('TOOL_AUTH_'));
    expect(authData(expired).action).toBe('deny');
    expect(authData(denied)).toMatchObject({
      reason: 'timeout',
      toolCallId: 'call_late',
      tool: 'record',
      workflowId: run.runId,
    });
    expect(denied.timestamp - asked.timestamp).toBeGreaterThanOrEqual(1500);
    const result = sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_late');
    expect(result).toMatch(/timeout/);
    expect(result).toMatch(/not approved within 1\.5 s/);
    expect(recordsOf(run.runId)).toEqual([]);
    // Deciding after the timeout is rejected like any decided call.
    expect(await decide(run.runId, 'call_late', 'approve')).toMatchObject({
      status: 409,
      body: { error: { code: 'decision_rejected' } },
    });
  });

  it('rejects a second decision and an unknown call id, over HTTP and as a Temporal update, and runs nothing twice', async () => {
    const agent = askingAgent('twice-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'first' }, { id: 'call_one' })]),
      toolCalls([toolCall('record', { label: 'second' }, { id: 'call_two' })]),
      text('both handled'),
    );
    const run = await bed.bridge.agio.start(agent, 'record twice');
    await waitForAsk(bed.client, run.runId, 'call_one');
    expect((await decide(run.runId, 'call_one', 'approve')).status).toBe(200);
    // The run now waits for its second call, so it is still running when the first is decided again.
    await waitForAsk(bed.client, run.runId, 'call_two');

    const again = await decide(run.runId, 'call_one', 'approve');
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'decision_rejected' } } });
    expect(again.body.error.message).toMatch(/tool call "call_one" has already been decided/);
    expect(await decide(run.runId, 'call_one', 'deny', { message: 'changed my mind' })).toMatchObject({ status: 409 });
    const unknown = await decide(run.runId, 'call_nope', 'approve');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'tool_call_not_found' } } });
    expect(unknown.body.error.message).toMatch(/call_nope/);

    const update = (arg: object) => run.workflow.executeUpdate(decideToolCallUpdate, { args: [arg as never] });
    const rejection = async (arg: object): Promise<string> => {
      const err = await update(arg).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      return (err as WorkflowUpdateFailedError).cause?.message ?? '';
    };
    expect(await rejection({ toolCallId: 'call_one', decision: 'approve' })).toMatch(
      /tool call "call_one" has already been decided/,
    );
    expect(await rejection({ toolCallId: 'call_nope', decision: 'approve' })).toMatch(
      /no tool call "call_nope" is waiting for approval/,
    );
    expect(await rejection({ toolCallId: 'call_two', decision: 'maybe' })).toMatch(/invalid decision/);
    expect(await run.workflow.query(stateQuery)).toMatchObject({
      pendingApprovals: [{ toolCallId: 'call_two', tool: 'record' }],
    });

    expect(await update({ toolCallId: 'call_two', decision: 'deny' })).toEqual({
      toolCallId: 'call_two',
      decision: 'deny',
    });
    expect(await rejection({ toolCallId: 'call_two', decision: 'deny' })).toMatch(/already been decided/);
    expect((await run.result()).response).toBe('both handled');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['first']);
    expect(activities(await run.workflow.fetchHistory(), 'runTool')).toHaveLength(1);
    const events = await readStream(bed.client, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_one'],
      ['TOOL_AUTH_GRANTED', 'call_one'],
      ['TOOL_AUTH_REQUIRED', 'call_two'],
      ['TOOL_AUTH_DENIED', 'call_two'],
    ]);
  });

  it("does not let tenant B decide tenant A's call (404), and tenant A still can", async () => {
    const agent = askingAgent('tenant-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'tenant a' }, { id: 'call_a' })]),
      text('done for a'),
    );
    const run = await bed.bridge.agio.start(agent, 'record for a', { tenant: 'tenant-a' });
    await waitForAsk(bed.client, run.runId, 'call_a');

    for (const decision of ['approve', 'deny'] as const) {
      expect(await decide(run.runId, 'call_a', decision, {}, 'token-b')).toMatchObject({
        status: 404,
        body: { error: { code: 'run_not_found' } },
      });
    }
    expect(await run.state()).toMatchObject({ pendingApprovals: [{ toolCallId: 'call_a' }] });
    expect(recordsOf(run.runId)).toEqual([]);

    expect(await decide(run.runId, 'call_a', 'approve', {}, 'token-a')).toMatchObject({ status: 200 });
    expect((await run.result()).response).toBe('done for a');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['tenant a']);
    const granted = (await readStream(bed.client, run.runId)).find((e) => e.type === 'TOOL_AUTH_GRANTED')!;
    expect(authData(granted).by).toBe('api:tenant-a');
  });

  it('approves a pending call with `temporal workflow update execute --name decideToolCall`', async () => {
    const agent = askingAgent('cli-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'via cli' }, { id: 'call_cli' })]),
      text('the cli approved'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something');
    await waitForAsk(bed.client, run.runId, 'call_cli');

    const input = JSON.stringify({ toolCallId: 'call_cli', decision: 'approve', by: 'ops' });
    const { stdout } = await execFileAsync(
      findBinary(TEMPORAL_CLI)!,
      [
        'workflow',
        'update',
        'execute',
        '--address',
        testEnv('temporalAddress'),
        '--workflow-id',
        run.runId,
        '--name',
        'decideToolCall',
        '--input',
        input,
      ],
      { timeout: 30_000 },
    );

    expect(stdout).toContain('call_cli');
    const output: RunOutput = await run.result();
    expect(output.response).toBe('the cli approved');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['via cli']);
    const granted = (await readStream(bed.client, run.runId)).find((e) => e.type === 'TOOL_AUTH_GRANTED')!;
    expect(authData(granted)).toMatchObject({ toolCallId: 'call_cli', by: 'ops', workflowId: run.runId });
  });
});
