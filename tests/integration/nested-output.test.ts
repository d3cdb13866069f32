// A nested run returns only what its parent reads (response, output, usage, ending), not its steps: a child that took
// many steps with large tool outputs leaves a small result in its parent's history, while a root still returns its
// steps to its client.
import { asTool, defineAgent, sequentialAgent, type RunOutput } from '../../common';
import { text, toolCall, toolCalls, type ScriptedTurn } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { runToEnd, type History } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';

/** The results of the children a history saw complete: each child's id and its result payload's size in bytes. */
function childResults(history: History): { workflowId: string; bytes: number; output: RunOutput }[] {
  return (history.events ?? []).flatMap((e) => {
    const done = e.childWorkflowExecutionCompletedEventAttributes;
    const payload = done?.result?.payloads?.[0];
    if (!done || !payload?.data) return [];
    const data = payload.data;
    return [
      {
        workflowId: done.workflowExecution?.workflowId ?? '',
        bytes: data.length,
        output: JSON.parse(Buffer.from(data).toString('utf8')) as RunOutput,
      },
    ];
  });
}

/** Ten turns of two 50 kB tool outputs each (20 tool steps, about 1 MB), then an answer. */
function busyTurns(answer: string): ScriptedTurn[] {
  const big = toolCall('big_output', { bytes: 50_000 });
  return [...Array.from({ length: 10 }, () => toolCalls([big, big])), text(answer)];
}

describe('nested run outputs', () => {
  const bed = useTestBed({ tools: testTools });
  const worker = () => bed.worker.taskQueue;

  it("keeps a busy agent tool's steps out of its parent's history: its result stays under 16 kB", async () => {
    const helper = defineAgent({
      name: 'helper',
      instructions: 'You are the busy helper.',
      tools: ['big_output'],
      maxSteps: 30,
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: [asTool(helper, { description: 'Reads a lot.' })],
    });
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('helper', { task: 'read everything' }, { id: 'call_busy' })]),
      text('the parent is done'),
    );
    bed.server.scriptFor('You are the busy helper.', ...busyTurns('read it all'));

    const { output, handle } = await runToEnd(bed.client, worker(), { agent: parent, input: 'go' });

    expect(output.response).toBe('the parent is done');
    // The root still returns its own steps to its client.
    expect(output.steps.length).toBeGreaterThanOrEqual(5);
    const [child] = childResults(await handle.fetchHistory());
    expect(child.output).toMatchObject({ response: 'read it all', terminationReason: 'completed', steps: [] });
    expect(child.output.stepsOmitted).toBeGreaterThanOrEqual(32);
    expect(child.output.usage).toBeDefined();
    expect(child.bytes).toBeLessThan(16_000);
    const size = Number((await handle.describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0);
    console.log(`parent history: ${size} bytes; child result: ${child.bytes} bytes`);
    // Its steps are still kept, in the stores: instructions, task, ten turns of a call and two results, the answer.
    expect(await bed.worker.stores.sessions.listSteps('default', child.workflowId)).toHaveLength(33);
  });

  it("keeps a workflow agent's LLM sub-agent's steps out of its result too", async () => {
    const reader = defineAgent({
      name: 'reader',
      instructions: 'You are the busy reader.',
      tools: ['big_output'],
      maxSteps: 30,
    });
    const seq = sequentialAgent({ name: 'seq', subAgents: [reader] });
    bed.server.scriptFor('You are the busy reader.', ...busyTurns('read by the reader'));

    const handle = await bed.client.workflow.start('sequentialAgentRun', {
      taskQueue: worker(),
      workflowId: uniqueId('seq'),
      args: [{ agent: seq, input: 'go' }],
    });
    const output = (await handle.result()) as RunOutput;

    expect(output.response).toBe('read by the reader');
    const [child] = childResults(await handle.fetchHistory());
    expect(child.output).toMatchObject({ response: 'read by the reader', steps: [] });
    expect(child.bytes).toBeLessThan(16_000);
  });
});
