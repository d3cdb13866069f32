// An agent tool's timeoutMs counts only the time its child works, on a real dev server: a child that waits for an
// approval, or a tree paused, past that deadline still finishes; a child that works past it is still cancelled.
import { asTool, defineAgent, type AgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import { askingAgent, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { requestsOf, waitForEvent } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

/** How long each test keeps its child waiting: twice the child's deadline. */
const WAIT_MS = 6000;
const TIMEOUT_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent-tool deadlines count active time only', () => {
  const bed = useTestBed({ tools: testTools });
  const parentOf = (child: AgentSpec) =>
    defineAgent({
      name: `${child.name}-parent`,
      instructions: `You are ${child.name}-parent.`,
      tools: [asTool(child, { description: 'Records.', timeoutMs: TIMEOUT_MS })],
    });
  const scriptParent = (child: AgentSpec, answer: string) =>
    bed.server.scriptFor(
      `You are ${child.name}-parent.`,
      toolCalls([toolCall(child.name, { task: 'record' }, { id: 'call_kid' })]),
      text(answer),
    );
  const childResult = (child: AgentSpec) =>
    sentToolResult(requestsOf(bed.server, `You are ${child.name}-parent.`)[1], 'call_kid');

  it('lets a child wait for an approval longer than its timeoutMs, then finish', async () => {
    const child = askingAgent('patient-child');
    scriptParent(child, 'the parent is done');
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'approved late' }, { id: 'call_rec' })]),
      text('recorded after approval'),
    );
    const run = await bed.agio.start(parentOf(child), 'go');
    const childId = `${run.runId}/tool/3-call_kid`;

    await waitForAsk(bed.client, run.runId, 'call_rec');
    await sleep(WAIT_MS);
    await run.approve('call_rec');

    expect((await run.result()).response).toBe('the parent is done');
    expect(childResult(child)).toBe('recorded after approval');
    expect(recordsOf(childId).map((r) => r.label)).toEqual(['approved late']);
    expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('COMPLETED');
  });

  it('lets a tree stay paused longer than a running child’s timeoutMs, then finish', async () => {
    const child = defineAgent({ name: 'paused-child', instructions: 'You are paused-child.', tools: ['echo'] });
    scriptParent(child, 'the tree is done');
    // The child's first answer streams for a second: the pause reaches it mid-call and it parks after the call.
    bed.server.scriptFor(
      'You are paused-child.',
      toolCalls([toolCall('echo', { text: 'hi' })], { chunkSize: 1, delayMs: 100 }),
      text('echoed after the pause'),
    );
    const run = await bed.agio.start(parentOf(child), 'go');
    const childId = `${run.runId}/tool/3-call_kid`;

    await waitForEvent(bed.client, run.runId, (e) => e.type === 'RUN_STARTED' && e.runId === childId);
    await run.pause({ by: 'lunch' });
    await waitFor('the tree parked', async () => (await run.state()).parked);
    await sleep(WAIT_MS);
    await run.resume({ by: 'lunch' });

    expect((await run.result()).response).toBe('the tree is done');
    expect(childResult(child)).toBe('echoed after the pause');
    expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('COMPLETED');
  });

  it('still cancels a child that works past its timeoutMs after waiting for an approval', async () => {
    const child = askingAgent('slow-child');
    scriptParent(child, 'went on without it');
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'then slow' }, { id: 'call_slow' })]),
      text('far too late', { hangMs: 30_000 }),
    );
    const run = await bed.agio.start(parentOf(child), 'go');
    const childId = `${run.runId}/tool/3-call_kid`;

    await waitForAsk(bed.client, run.runId, 'call_slow');
    await sleep(WAIT_MS);
    const approvedAt = Date.now();
    await run.approve('call_slow');

    expect((await run.result()).response).toBe('went on without it');
    // It had its whole deadline after the wait, and not much more.
    expect(Date.now() - approvedAt).toBeGreaterThanOrEqual(TIMEOUT_MS - 1000);
    expect(Date.now() - approvedAt).toBeLessThan(20_000);
    expect(JSON.parse(childResult(child))).toEqual({
      unavailable: true,
      agent: 'slow-child',
      error: `timed out: it did not finish within its timeoutMs of ${TIMEOUT_MS} ms`,
    });
    expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
  });
});
