// Providers that number their tool calls afresh every turn (`call_0` each time): every call of a run is still its own,
// an agent tool's child id names its tool step, and a truncated output's stored copy is kept per call.
import { asTool, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResults } from '../helpers/agent-runs';
import { childStarts, eventsOf, expectWholeStream, requestsOf, runAndStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

describe('repeated tool call ids', () => {
  const bed = useTestBed({ tools: testTools });
  const run = (agent: ReturnType<typeof defineAgent>) =>
    runAndStream(bed.client, bed.worker.taskQueue, { agent, input: 'go' });

  it('runs two agent-tool calls that share an id in two turns as two children, each with its own steps', async () => {
    const helper = defineAgent({ name: 'helper', instructions: 'You are the repeated helper.' });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the repeating parent.',
      tools: [asTool(helper, { description: 'Helps.' })],
    });
    bed.server.scriptFor(
      'You are the repeating parent.',
      toolCalls([toolCall('helper', { task: 'first' }, { id: 'call_0' })]),
      toolCalls([toolCall('helper', { task: 'second' }, { id: 'call_0' })]),
      text('both done'),
    );
    bed.server.scriptFor('You are the repeated helper.', text('first answer'), text('second answer'));

    const { rootRunId, events, output } = await run(parent);

    expect(output.response).toBe('both done');
    const ids = [`${rootRunId}/tool/3-call_0`, `${rootRunId}/tool/5-call_0`];
    const history = await bed.client.workflow.getHandle(rootRunId).fetchHistory();
    expect(childStarts(history).map((c) => c.workflowId)).toEqual(ids);
    // Both results reached the parent's model, each for its own call.
    const last = requestsOf(bed.server, 'You are the repeating parent.')[2];
    expect(sentToolResults(last)).toEqual([
      { id: 'call_0', content: 'first answer' },
      { id: 'call_0', content: 'second answer' },
    ]);
    expectWholeStream(events, rootRunId);
    // The trace keeps both calls apart too: each child's run hangs under its own tool span.
    const spans = (await bed.worker.stores.traces.getTrace('default', rootRunId))?.spans ?? [];
    const toolSpans = spans.filter((s) => s.kind === 'tool' && s.runId === rootRunId).map((s) => s.spanId);
    expect(toolSpans.sort()).toEqual([`${rootRunId}:tool:3-call_0`, `${rootRunId}:tool:5-call_0`]);
    for (const id of ids) expect(spans.find((s) => s.spanId === id)?.parentSpanId).toBe(id.replace('/tool/', ':tool:'));
    for (const [i, id] of ids.entries()) {
      const answer = ['first answer', 'second answer'][i];
      const own = eventsOf(events, id);
      expect(own[0]).toMatchObject({ type: 'RUN_STARTED', toolCallId: 'call_0', depth: 1 });
      expect(own.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', data: { response: answer } });
      const steps = await bed.worker.stores.sessions.listSteps('default', id);
      expect(steps.map((s) => [s.role, s.content])).toEqual([
        ['system', 'You are the repeated helper.'],
        ['user', expect.stringContaining(i === 0 ? 'first' : 'second')],
        ['assistant', answer],
      ]);
    }
  });

  it('stores each truncated output under its own ref when two calls share an id', async () => {
    const reader = defineAgent({
      name: 'reader',
      instructions: 'You are the repeating reader.',
      tools: ['big_output'],
      limits: { maxToolOutputBytes: 1000 },
    });
    bed.server.scriptFor(
      'You are the repeating reader.',
      toolCalls([toolCall('big_output', { bytes: 2000 }, { id: 'call_0' })]),
      toolCalls([toolCall('big_output', { bytes: 3000 }, { id: 'call_0' })]),
      text('read both'),
    );

    const { rootRunId, output } = await run(reader);

    const refs = output.steps.filter((s) => s.role === 'tool').map((s) => s.metadata?.ref as string);
    expect(refs).toHaveLength(2);
    expect(refs[0]).not.toBe(refs[1]);
    const stored = await Promise.all(refs.map((ref) => bed.worker.stores.toolResults.get('default', rootRunId, ref)));
    expect(stored.map((c) => c?.length)).toEqual([2000, 3000]);
  });
});
