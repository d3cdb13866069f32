// Callback tools that wait where it is hard (docs/ARCHITECTURE.md, "Callback tools"): in a nested run (an agent used as
// a tool, whose active deadline stands still meanwhile) completed through its root, and across a worker restart, the
// result sent to the URL reaches the run the new worker runs, and the start is never run twice.
import { asTool, defineAgent, WaitingSearchAttributes } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { activities, sentToolResult } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { callbackBedOptions, startedCallbacks, startOf, waitForCallback } from '../helpers/callbacks';
import { readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed, type TestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

describe('callback tools that wait durably', () => {
  const bed: TestBed = useTestBed(callbackBedOptions(() => bed));

  it('waits in a nested run, shows there, and is completed through the root by tool call id', async () => {
    const releaser = defineAgent({ name: 'releaser', instructions: 'You are the releaser.', tools: ['deploy'] });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'You are the lead.',
      // The child waits far longer than its deadline: a wait for outside work does not count against it.
      // `stream: 'none'`: the wait is shown all the same (it is how the call is found by its id).
      tools: [asTool(releaser, { description: 'Releases a service.', timeoutMs: 2_000, stream: 'none' })],
    });
    bed.server.scriptFor(
      'You are the lead.',
      toolCalls([toolCall('releaser', { task: 'release api' }, { id: 'call_rel' })]),
      text('the release is out'),
    );
    bed.server.scriptFor(
      'You are the releaser.',
      toolCalls([toolCall('deploy', { service: 'api' }, { id: 'call_nested' })]),
      text('api deployed'),
    );
    const root = await bed.bridge.agio.start(lead, 'release');
    const waiting = await waitForCallback(bed.client, root.runId, 'call_nested');
    const childId = waiting.data.workflowId;
    expect(childId).not.toBe(root.runId);
    expect(waiting).toMatchObject({ depth: 1, runId: childId, rootRunId: root.runId });
    const child = bed.agio.getHandle(childId);
    expect((await child.state()).pendingCallbacks).toEqual([expect.objectContaining({ toolCallId: 'call_nested' })]);
    await waitFor('the child run indexed as waiting on a callback', async () =>
      (await child.workflow.describe()).typedSearchAttributes
        .get(WaitingSearchAttributes.waiting)
        ?.includes('callback'),
    );
    // A deadline that did not fire can only be seen by letting it pass: 2.5 s is past the child's 2 s, had the wait
    // counted.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await root.completeCallback('call_nested', { result: 'api v7 is live' })).toMatchObject({
      toolCallId: 'call_nested',
      tool: 'deploy',
    });
    expect((await root.result()).response).toBe('the release is out');
    expect(sentToolResult(requestsOf(bed.server, 'You are the releaser.')[1], 'call_nested')).toBe('api v7 is live');
    const events = await readStream(bed.client, root.runId);
    expect(events.filter((e) => e.type === 'TOOL_CALLBACK_WAITING').map((e) => e.runId)).toEqual([childId]);
  });

  it('still refuses a second result as already completed after the run continued as new', async () => {
    const agent = defineAgent({
      name: 'continuer',
      instructions: 'You are the continuer.',
      tools: ['deploy'],
      limits: { continueAsNewAfterModelCalls: 1 },
    });
    bed.server.scriptFor(
      'You are the continuer.',
      toolCalls([toolCall('deploy', { service: 'one' }, { id: 'call_one' })]),
      toolCalls([toolCall('deploy', { service: 'two' }, { id: 'call_two' })]),
      text('both deployed'),
    );
    const run = await bed.bridge.agio.start(agent, 'deploy two services');
    await waitForCallback(bed.client, run.runId, 'call_one');
    expect((await request(startOf('call_one').url, { body: { result: 'one is live' } })).status).toBe(200);
    await waitForCallback(bed.client, run.runId, 'call_two');
    // The first call's result was taken in an earlier execution of the run.
    const started = (await run.workflow.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(started?.continuedExecutionRunId).toBeTruthy();
    const again = await request(startOf('call_one').url, { body: { result: 'one again' } });
    expect([again.status, again.body.error?.code]).toEqual([409, 'callback_already_completed']);
    expect((await request(startOf('call_two').url, { body: { result: 'two is live' } })).status).toBe(200);
    expect((await run.result()).response).toBe('both deployed');
  });

  it('takes the result sent to its URL after the worker that started the call has stopped', async () => {
    const agent = defineAgent({ name: 'restarter', instructions: 'You are the restarter.', tools: ['deploy'] });
    bed.server.scriptFor(
      'You are the restarter.',
      toolCalls([toolCall('deploy', { service: 'queue' }, { id: 'call_restart' })]),
      text('queue deployed'),
    );
    const run = await bed.bridge.agio.start(agent, 'deploy the queue');
    await waitForCallback(bed.client, run.runId, 'call_restart');
    const { url } = startOf('call_restart');
    await bed.restartWorker();
    expect(await request(url, { body: { result: { queue: 'ready' } } })).toEqual({
      status: 200,
      body: { completed: true },
    });
    expect((await run.result()).response).toBe('queue deployed');
    expect(sentToolResult(requestsOf(bed.server, 'You are the restarter.')[1], 'call_restart')).toBe(
      '{"queue":"ready"}',
    );
    expect(startedCallbacks.filter((s) => s.toolCallId === 'call_restart')).toHaveLength(1);
    expect(activities(await run.workflow.fetchHistory(), 'startCallbackTool')).toHaveLength(1);
  });
});
