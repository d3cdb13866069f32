// Pause, resume and cancel of a loop through the AgioClient on a real dev server (docs/ARCHITECTURE.md, "Workflow
// agents and operator control"; LoopAgent scenario 4): pause takes effect at the next safe point — before the next
// sub-agent, or at a sub-agent's next step — and parks there costing no worker CPU; resume goes on exactly there, also
// across continue-as-new; RUN_PAUSED / RUN_RESUMED say who and why; cancelling the loop cancels the running sub-agent.
// The same pause and resume through the HTTP bridge and the Temporal CLI: run-control-doors.test.ts.
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { loopAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { recordedToolCalls, testTools } from '../fixtures/test-tools';
import { eventsNow, readStream } from '../helpers/nested-runs';
import { SLOW, SLOW_TEXT, expectParkedIdle, startSlowLoop, watchAgentStreams } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';
import {
  agentKey,
  agentOfRequest,
  agentStates,
  requestsOfAgent,
  runChain,
  subAgent,
  waitFor,
} from '../helpers/workflow-agents';

describe('pause, resume and cancel of a loop', () => {
  const bed = useTestBed({ tools: testTools });
  const streams = watchAgentStreams(bed);

  it('parks before the next sub-agent when paused mid-stream, costs nothing while parked, and resumes exactly there (LoopAgent scenario 4)', async () => {
    const handle = await startSlowLoop(bed, 'pausable');
    await streams.streaming('A');
    const pausedAt = Date.now();

    const parked = await handle.pause({ reason: 'inspect the draft', by: 'alice' });

    // The pause was asked for while A was still streaming; it took effect only after A's call completed.
    expect(streams.lastChunkAt.get('A')).toBeGreaterThan(pausedAt);
    expect(parked).toEqual({ paused: true, parked: true, pausedBy: 'alice', pauseReason: 'inspect the draft' });
    expect(await handle.state()).toMatchObject({
      status: 'running',
      kind: 'loop',
      paused: true,
      parked: true,
      timesLooped: 0,
      currentSubAgent: 'B',
      currentSubAgentIndex: 1,
      children: [],
    });
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);
    const events = await eventsNow(bed.client, handle.runId);
    expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
      depth: 0,
      runId: handle.runId,
      data: { reason: 'inspect the draft', by: 'alice' },
    });
    expect(events.find((e) => e.runId === `${handle.runId}/loop-0/0-A` && e.type === 'RUN_COMPLETED')).toMatchObject({
      data: { response: SLOW_TEXT },
    });
    expect(agentStates(events)).toEqual([{ timesLooped: 0, currentSubAgent: 'A' }]);

    // Parked: no activity, timer or workflow task, and B has still not been asked.
    await expectParkedIdle(bed.client, [handle.runId]);
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

    const resumed = await handle.resume({ reason: 'looks fine', by: 'bob' });
    expect(resumed).toEqual({ paused: false, parked: false });
    const [all, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B done' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
    const order = ['RUN_PAUSED', 'RUN_RESUMED', 'AGENT_STATE'].map((type) =>
      all.findIndex(
        (e) =>
          e.depth === 0 &&
          e.type === type &&
          (type !== 'AGENT_STATE' || (e.data as { currentSubAgent: string }).currentSubAgent === 'B'),
      ),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(all[order[1]]).toMatchObject({ type: 'RUN_RESUMED', data: { reason: 'looks fine', by: 'bob' } });
    expect(all.filter((e) => e.type === 'RUN_PAUSED')).toHaveLength(1);
    expect(agentStates(all)).toEqual([
      { timesLooped: 0, currentSubAgent: 'A' },
      { timesLooped: 0, currentSubAgent: 'B' },
    ]);
  });

  it('pauses the whole tree: the update returns once the running sub-agent has parked at its next step, and nothing runs while paused', async () => {
    bed.server.scriptFor(
      agentKey('A'),
      toolCalls([toolCall('record', { label: 'before the pause' })], { chunkSize: 1, delayMs: 100 }),
      text('A after the pause'),
    );
    bed.server.scriptFor(agentKey('B'), text('B done'));
    const handle = await bed.agio.start(
      loopAgent({ name: 'tree', subAgents: [subAgent('A', { tools: ['record'] }), subAgent('B')], maxIterations: 1 }),
      'go',
    );
    const childId = `${handle.runId}/loop-0/0-A`;
    await streams.streaming('A');

    const parked = await handle.pause({ reason: 'freeze', by: 'ops' });

    // By the time the update answered, the child had parked and published its RUN_PAUSED at depth 1.
    const events = await eventsNow(bed.client, handle.runId);
    expect(parked).toEqual({ paused: true, parked: true, pausedBy: 'ops', pauseReason: 'freeze' });
    expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
      runId: childId,
      depth: 1,
      data: { reason: 'freeze', by: 'ops' },
    });
    expect(await bed.agio.getHandle(childId).state()).toMatchObject({
      kind: 'llm',
      paused: true,
      parked: true,
      modelCalls: 1,
    });
    expect(await handle.state()).toMatchObject({
      paused: true,
      parked: true,
      currentSubAgent: 'A',
      children: [childId],
    });
    // A finished its first step (the tool ran) and stopped before asking the model again.
    expect(recordedToolCalls.filter((c) => c.runId === childId).map((c) => c.label)).toEqual(['before the pause']);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    await expectParkedIdle(bed.client, [handle.runId, childId]);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    await handle.resume({ by: 'ops' });
    const [all, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B done' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'A', 'B']);
    // The child was paused and resumed by its parent, on behalf of the operator.
    expect(all.filter((e) => e.type === 'RUN_RESUMED')).toEqual([
      expect.objectContaining({ runId: childId, depth: 1, data: { by: 'ops', reason: 'resume of parent' } }),
    ]);
  });

  it('holds a pause asked for during the last sub-agent of an iteration across continue-as-new', async () => {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW), text('A two'));
    const handle = await bed.agio.start(
      loopAgent({ name: 'pause-then-continue', subAgents: [subAgent('A')], maxIterations: 2, continueAsNewEvery: 1 }),
      'go',
    );
    await streams.streaming('A');

    const parked = await handle.pause({ reason: 'hold', by: 'ops' });

    expect(parked).toMatchObject({ paused: true, parked: true });
    expect(await handle.state()).toMatchObject({ paused: true, parked: true, timesLooped: 1 });
    await expectParkedIdle(bed.client, [handle.runId]);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    await handle.resume({ by: 'ops' });
    const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'A two' });
    expect(agentStates(events)).toEqual([
      { timesLooped: 0, currentSubAgent: 'A' },
      { timesLooped: 1, currentSubAgent: 'A' },
    ]);
    expect(events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => e.type)).toEqual([
      'RUN_PAUSED',
      'RUN_RESUMED',
    ]);
    expect((await runChain(bed.client, handle.runId)).map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
  });

  it('holds a pause of an agent run that is about to continue as new, and resumes into the new run', async () => {
    bed.server.scriptFor(
      agentKey('solo'),
      toolCalls([toolCall('record', { label: 'step one' })], { chunkSize: 1, delayMs: 100 }),
      text('solo done'),
    );
    const handle = await bed.agio.start(subAgent('solo', { tools: ['record'] }), 'go', {
      limits: { continueAsNewAfterModelCalls: 1 },
    });
    await streams.streaming('solo');

    const parked = await handle.pause({ reason: 'hold', by: 'ops' });

    expect(parked).toMatchObject({ paused: true, parked: true });
    expect(await handle.state()).toMatchObject({ kind: 'llm', paused: true, parked: true, modelCalls: 1 });
    expect(requestsOfAgent(bed.server, 'solo')).toHaveLength(1);
    await handle.resume({ by: 'ops' });
    const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'completed', response: 'solo done' });
    expect(events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => e.type)).toEqual([
      'RUN_PAUSED',
      'RUN_RESUMED',
    ]);
    expect((await runChain(bed.client, handle.runId)).map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
  });

  it('answers a pause asked for while the run finishes, instead of leaving it waiting', async () => {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW));
    const handle = await bed.agio.start(
      loopAgent({ name: 'finishes-while-pausing', subAgents: [subAgent('A')], maxIterations: 1 }),
      'go',
    );
    await streams.streaming('A');

    const answer = await handle.pause({ reason: 'too late', by: 'ops' }).then(
      (state) => ({ state }),
      (err: Error) => ({ err: `${err.name}: ${err.message}` }),
    );

    expect(answer).toEqual({ state: { paused: false, parked: false, finished: true } });
    expect(await handle.result()).toMatchObject({ terminationReason: 'max_iterations' });
  });

  it('cancels the running sub-agent with the loop and ends the stream with RUN_CANCELLED at depth 0', async () => {
    bed.server.scriptFor(agentKey('A'), text('never finished', { hangMs: 60_000 }));
    const handle = await bed.agio.start(
      loopAgent({ name: 'cancelled', subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 }),
      'go',
    );
    const childId = `${handle.runId}/loop-0/0-A`;
    await waitFor("A's model request", () => requestsOfAgent(bed.server, 'A').length === 1);
    const reading = readStream(bed.client, handle.runId);

    await handle.cancel();

    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
    expect((await handle.workflow.describe()).status.name).toBe('CANCELLED');
    const events = await reading;
    expect(events.at(-1)).toMatchObject({ type: 'RUN_CANCELLED', depth: 0, runId: handle.runId });
    expect(events.filter((e) => e.type === 'RUN_CANCELLED').map((e) => [e.runId, e.depth])).toEqual([
      [childId, 1],
      [handle.runId, 0],
    ]);
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);
    expect(await handle.state()).toMatchObject({ status: 'cancelled' });
  });
});
