// Escalation ends a loop right after the escalating sub-agent (LoopAgent scenario 3): by the built-in `exit_loop`
// tool or by a final answer `{"escalate": true}`. It is scoped: a sub-agent of an inner loop ends only that
// loop, unless it asks for `toRoot`, which ends every enclosing one.
import { loopAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { offeredTools } from '../helpers/agent-runs';
import { childStarts, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, agentOfRequest, agentStates, requestsOfAgent, subAgent, trail } from '../helpers/workflow-agents';

describe('loop escalation', () => {
  const bed = useTestBed();

  it('ends the loop right after a sub-agent calls exit_loop: later sub-agents of that iteration do not run', async () => {
    bed.server.scriptFor(agentKey('A'), text('A drafted'));
    bed.server.scriptFor(
      agentKey('B'),
      toolCalls([toolCall('exit_loop', { reason: 'good enough' }, { id: 'call_exit' })]),
    );
    const loop = loopAgent({
      name: 'exits',
      subAgents: [subAgent('A'), subAgent('B', { tools: ['exit_loop'] }), subAgent('C')],
      maxIterations: 3,
    });

    const run = await bed.agio.start(loop, 'go');
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output.terminationReason).toBe('escalated');
    expect(output.response).toBe('good enough');
    // The loop consumed the escalation: nothing travels further up.
    expect(output.escalation).toBeUndefined();
    expect(agentStates(events)).toEqual(trail([0], ['A', 'B']));
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
    expect(offeredTools(requestsOfAgent(bed.server, 'B')[0])).toEqual(['exit_loop']);
    const b = `${run.runId}/loop-0/1-B`;
    expect(
      events.find((e) => e.runId === b && e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool')?.snapshot,
    ).toMatchObject({ name: 'exit_loop', toolCallId: 'call_exit', content: 'Exiting the loop.' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, data: { terminationReason: 'escalated' } });
    expect(childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId)).toEqual([
      `${run.runId}/loop-0/0-A`,
      b,
    ]);
  });

  it('ends the loop when a sub-agent answers {"escalate": true}, in the middle of a later iteration', async () => {
    bed.server.scriptFor(agentKey('A'), text('A one'), text('{"escalate": true, "reason": "done"}'));
    bed.server.scriptFor(agentKey('B'), text('B one'));
    const loop = loopAgent({ name: 'answers-escalate', subAgents: [subAgent('A'), subAgent('B')], maxIterations: 5 });

    const run = await bed.agio.start(loop, 'go');
    const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

    expect(output.terminationReason).toBe('escalated');
    expect(output.response).toBe('{"escalate": true, "reason": "done"}');
    expect(agentStates(events)).toEqual([...trail([0], ['A', 'B']), { timesLooped: 1, currentSubAgent: 'A' }]);
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B', 'A']);
  });

  describe('in a loop nested in a loop', () => {
    /** outer = [inner = [X, Y], Z]; X calls exit_loop at once each of the `times` it runs. */
    const nested = (exitArgs: object, times: number) => {
      for (let i = 0; i < times; i++) bed.server.scriptFor(agentKey('X'), toolCalls([toolCall('exit_loop', exitArgs)]));
      const inner = loopAgent({
        name: 'inner',
        subAgents: [subAgent('X', { tools: ['exit_loop'] }), subAgent('Y')],
        maxIterations: 4,
      });
      return loopAgent({ name: 'outer', subAgents: [inner, subAgent('Z')], maxIterations: 2 });
    };

    it('ends only the inner loop: the outer one goes on to its next sub-agent and iteration', async () => {
      const outer = nested({ reason: 'inner is done' }, 2);
      bed.server.scriptFor(agentKey('Z'), text('Z one'), text('Z two'));

      const run = await bed.agio.start(outer, 'go');
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output.terminationReason).toBe('max_iterations');
      expect(output.response).toBe('Z two');
      expect(output.escalation).toBeUndefined();
      expect(agentStates(events)).toEqual(trail([0, 1], ['inner', 'Z']));
      expect(bed.server.requests.map(agentOfRequest)).toEqual(['X', 'Z', 'X', 'Z']);
      for (const i of [0, 1]) {
        const innerId = `${run.runId}/loop-${i}/0-inner`;
        expect(agentStates(events, innerId)).toEqual([{ timesLooped: 0, currentSubAgent: 'X' }]);
        expect(events.find((e) => e.runId === innerId && e.type === 'RUN_COMPLETED')).toMatchObject({
          depth: 1,
          data: { terminationReason: 'escalated' },
        });
      }
    });

    it('ends both loops when the escalation asks for toRoot', async () => {
      const outer = nested({ reason: 'stop everything', toRoot: true }, 1);

      const run = await bed.agio.start(outer, 'go');
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output.terminationReason).toBe('escalated');
      expect(output.escalation).toEqual({ agent: 'X', reason: 'stop everything', toRoot: true });
      expect(output.response).toBe('stop everything');
      expect(agentStates(events)).toEqual([{ timesLooped: 0, currentSubAgent: 'inner' }]);
      expect(bed.server.requests.map(agentOfRequest)).toEqual(['X']);
      expect(events.find((e) => e.runId === `${run.runId}/loop-0/0-inner` && e.type === 'RUN_COMPLETED')).toMatchObject(
        { depth: 1, data: { terminationReason: 'escalated' } },
      );
    });
  });
});
