// A conversation over limits.inlineModelInputBytes does not travel whole in the callModel activity input: the input
// carries the messages that changed since the previous call and the activity reads the rest from the message store
// (never with the conversation Query). The model must receive exactly what it would have received inline, and the
// history must not repeat the conversation.
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { callModelInputs, runToEnd, sentMessages } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';

const script = () => [
  toolCalls([toolCall('echo', { text: 'one' }, { id: 'c1' })]),
  toolCalls([toolCall('echo', { text: 'two' }, { id: 'c2' })]),
  text('done after two echoes'),
];

describe('callModel input by reference', () => {
  const bed = useTestBed({ tools: testTools });
  const agent = defineAgent({ name: 'echoer', instructions: 'Echo twice, then finish.', tools: ['echo'] });
  /** UTF-8 bytes of the conversation of each model call of the inline run (what the threshold compares). */
  let inlineBytes: number[] = [];

  it('sends the model the same conversation whether it travels inline or through the message store', async () => {
    bed.server.script(...script());
    const inline = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'go',
      context: { limits: { inlineModelInputBytes: 1_000_000 } },
    });
    const inlineSent = bed.server.requests.map(sentMessages);
    bed.server.reset();

    bed.server.script(...script());
    const byRef = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'go',
      context: { limits: { inlineModelInputBytes: 0 } },
    });
    const byRefSent = bed.server.requests.map(sentMessages);

    expect(byRef.output).toMatchObject({ terminationReason: 'completed', response: 'done after two echoes' });
    expect(inline.output.response).toBe(byRef.output.response);
    expect(byRefSent.map((m) => m.length)).toEqual([2, 4, 6]);
    // Tool call ids and step ids differ per run only where they embed the run id; the messages match otherwise.
    const normalise = (sent: unknown[][], runId: string) => JSON.parse(JSON.stringify(sent).replaceAll(runId, 'RUN'));
    expect(normalise(byRefSent, byRef.handle.workflowId)).toEqual(normalise(inlineSent, inline.handle.workflowId));

    const inputs = callModelInputs(await byRef.handle.fetchHistory());
    const { runId } = await byRef.handle.describe();
    expect(inputs.map((i) => i.messages)).toEqual([undefined, undefined, undefined]);
    expect(inputs.map((i) => i.conversation)).toEqual([undefined, undefined, undefined]);
    // The first call writes the whole conversation, each later one only the messages added since.
    const shape = (i: (typeof inputs)[number]) => {
      const { version, base, count, changed } = i.stored!;
      return { runId: i.stored!.runId, version, base, count, changed: changed.map((c) => [c.at, c.messages.length]) };
    };
    expect(inputs.map(shape)).toEqual([
      { runId, version: 1, base: 1, count: 2, changed: [[0, 2]] },
      { runId, version: 2, base: 1, count: 4, changed: [[2, 2]] },
      { runId, version: 3, base: 1, count: 6, changed: [[4, 2]] },
    ]);
    const inlineInputs = callModelInputs(await inline.handle.fetchHistory());
    expect(inlineInputs.map((i) => i.messages?.length)).toEqual([2, 4, 6]);
    inlineBytes = inlineInputs.map((i) => Buffer.byteLength(JSON.stringify(i.messages)));
  });

  it('switches from inline to the message store once the conversation passes the threshold, and keeps each input small', async () => {
    expect(inlineBytes).toHaveLength(3);
    bed.server.script(...script());
    // Just the first conversation fits.
    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'go',
      context: { limits: { inlineModelInputBytes: inlineBytes[0] } },
    });
    expect(output.response).toBe('done after two echoes');
    const inputs = callModelInputs(await handle.fetchHistory());
    expect(inputs.map((i) => (i.messages ? 'inline' : i.stored ? 'stored' : 'query'))).toEqual([
      'inline',
      'stored',
      'stored',
    ]);
    const sizes = inputs.map((i) => JSON.stringify(i).length);
    expect(sizes[2]).toBeLessThan(sizes[1]); // the first stored call writes 4 messages, the next only the 2 new ones
    expect(bed.server.requests.map((r) => sentMessages(r).length)).toEqual([2, 4, 6]);
  });
});
