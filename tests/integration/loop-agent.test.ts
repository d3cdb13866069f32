// The loop agent on a real dev server (docs/ARCHITECTURE.md, "Workflow agents and operator control"): each iteration
// runs every sub-agent in order as a child workflow, publishing AGENT_STATE { timesLooped, currentSubAgent } before
// each; it stops at maxIterations; resumeFrom starts mid-loop; sub-agents pass work to each other through the shared
// state.
import { loopAgent, type RunOutput } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { childStarts, eventsOf, readStream, expectWholeLogs } from '../helpers/nested-runs';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import {
  agentKey,
  agentOfRequest,
  agentStates,
  requestsOfAgent,
  subAgent,
  systemPrompt,
  trail,
} from '../helpers/workflow-agents';

describe('loop agent', () => {
  const bed = useTestBed();

  it('runs A, B, C twice in order with AGENT_STATE before each and stops at maxIterations (LoopAgent scenario 1)', async () => {
    for (const name of ['A', 'B', 'C']) bed.server.scriptFor(agentKey(name), text(`${name} one`), text(`${name} two`));
    const loop = loopAgent({ name: 'abc', subAgents: [subAgent('A'), subAgent('B'), subAgent('C')], maxIterations: 2 });

    const run = await bed.agio.start(loop, 'go', { runId: uniqueId('loop') });
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'C two', runId: run.runId });
    expect(agentStates(events)).toEqual(trail([0, 1], ['A', 'B', 'C']));
    expect(
      events
        .filter((e) => e.type === 'AGENT_STATE' && e.depth === 0)
        .map((e) => (e.data as { currentSubAgentIndex: number }).currentSubAgentIndex),
    ).toEqual([0, 1, 2, 0, 1, 2]);
    // Each sub-agent ran as its own child workflow, once per iteration, in order, each asked exactly once.
    const ids = trail([0, 1], ['A', 'B', 'C']).map(
      (p, i) => `${run.runId}/loop-${p.timesLooped}/${i % 3}-${p.currentSubAgent}`,
    );
    expect(childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId)).toEqual(ids);
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'C', 'A', 'B', 'C']);
    // Every child's whole life sits between its AGENT_STATE and the next one.
    for (const [i, id] of ids.entries()) {
      const child = eventsOf(events, id);
      expect([child[0].type, child.at(-1)!.type]).toEqual(['RUN_STARTED', 'RUN_COMPLETED']);
      expect(
        child.every((e) => e.depth === 1 && e.parentRunId === run.runId && e.nestingType === 'workflow_agent'),
      ).toBe(true);
      // (Stream positions: a child that keeps its own log has its own offsets.)
      const states = events.filter((e) => e.type === 'AGENT_STATE' && e.depth === 0);
      expect(events.indexOf(child[0])).toBeGreaterThan(events.indexOf(states[i]));
      if (states[i + 1]) expect(events.indexOf(child.at(-1)!)).toBeLessThan(events.indexOf(states[i + 1]));
    }
    expectWholeLogs(events); // every event of every run's own log once, in order
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_COMPLETED',
      depth: 0,
      data: { terminationReason: 'max_iterations' },
    });
    expect(await run.state()).toMatchObject({
      status: 'completed',
      kind: 'loop',
      timesLooped: 2,
      paused: false,
      children: [],
    });
  });

  it('starts at C of iteration 2 when resumed from { timesLooped: 1, currentSubAgent: 2 }, running neither A nor B first', async () => {
    bed.server.scriptFor(agentKey('C'), text('C resumed'));
    const loop = loopAgent({
      name: 'resumed',
      subAgents: [subAgent('A'), subAgent('B'), subAgent('C')],
      maxIterations: 2,
    });

    const run = await bed.agio.start(loop, 'go on', { resumeFrom: { timesLooped: 1, currentSubAgent: 2 } });
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'C resumed' });
    expect(agentStates(events)).toEqual([{ timesLooped: 1, currentSubAgent: 'C' }]);
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['C']);
    expect(childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId)).toEqual([
      `${run.runId}/loop-1/2-C`,
    ]);
  });

  it("passes the writer's draft to the critic through shared state and ends holding both keys", async () => {
    const writer = subAgent('writer', {
      instructions: 'Write a haiku. Feedback so far: {critique}',
      outputKey: 'draft',
    });
    const critic = subAgent('critic', { instructions: 'Critique this draft: <<{draft}>>', outputKey: 'critique' });
    bed.server.scriptFor(agentKey('writer'), text('first draft about rain'), text('second draft about snow'));
    bed.server.scriptFor(agentKey('critic'), text('too wet'), text('lovely'));
    const loop = loopAgent({ name: 'writing-room', subAgents: [writer, critic], maxIterations: 2 });

    const run = await bed.agio.start(loop, 'a haiku please');
    const [events, output]: [unknown, RunOutput] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    const criticPrompts = requestsOfAgent(bed.server, 'critic').map(systemPrompt);
    expect(criticPrompts).toHaveLength(2);
    expect(criticPrompts[0]).toContain('Critique this draft: <<first draft about rain>>');
    expect(criticPrompts[1]).toContain('Critique this draft: <<second draft about snow>>');
    // The second iteration's writer sees the first critique; the first one saw the placeholder as written.
    const writerPrompts = requestsOfAgent(bed.server, 'writer').map(systemPrompt);
    expect(writerPrompts[0]).toContain('Feedback so far: {critique}');
    expect(writerPrompts[1]).toContain('Feedback so far: too wet');
    expect(output.state).toEqual({ draft: 'second draft about snow', critique: 'lovely' });
    expect(output.response).toBe('lovely');
    expect((events as { type: string; depth: number; data?: unknown }[]).at(-1)).toMatchObject({
      type: 'RUN_COMPLETED',
      depth: 0,
      data: { state: output.state },
    });
    expect(await run.state()).toMatchObject({ state: { draft: 'second draft about snow', critique: 'lovely' } });
  });
});
