// Token deltas on the live lane (as in `agio serve`, where worker and bridge share a process): they reach SSE clients
// without passing through any workflow's history, a client that reconnects mid-step gets the rest of the step with
// no gap and no duplicate, and a nested run's streaming leaves its root's history small.
import { asTool, defineAgent, type AgioEvent } from '../../common';
import { InProcessLane } from '../../live/in-process-lane';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';
const lane = new InProcessLane();

/** The history events of a workflow, and how many of them are signals. */
async function historyOf(
  bed: ReturnType<typeof useTestBed>,
  workflowId: string,
): Promise<{ events: number; signals: number }> {
  const history = await bed.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return { events: events.length, signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length };
}

/** The text a client would show for a step: its deltas of the newest attempt, in order. */
const streamedText = (events: AgioEvent[], stepId: string) =>
  events
    .filter((e) => e.type === 'STEP_DELTA' && e.stepId === stepId)
    .map((e) => e.delta?.content ?? '')
    .join('');

describe('the live lane', () => {
  const bed = useTestBed({ workerOptions: { liveLane: lane }, bridge: { liveLane: lane } });

  it('streams deltas to SSE clients with lane positions in their ids, and none into the root history', async () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
    bed.server.script(text(words.join(''), { chunkSize: 3, delayMs: 10 }));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'talker' }), 'talk');
    const { events: frames, closedBy } = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 30_000,
    });
    const events = agioEvents(frames);

    expect(closedBy).toBe('server');
    const deltas = events.filter((e) => e.type === 'STEP_DELTA');
    expect(deltas.length).toBeGreaterThan(10);
    expect(streamedText(events, `${run.runId}:1`)).toBe(words.join(''));
    // Durable events keep their offsets 0..n-1; a delta carries the offset before it and its lane position.
    const durable = events.filter((e) => e.type !== 'STEP_DELTA');
    expect(durable.map((e) => e.offset)).toEqual(durable.map((_, i) => i));
    for (const d of deltas) expect(d.seq).toEqual(expect.any(Number));
    const ids = frames.map((f: SseEvent) => f.id);
    expect(ids.at(-1)).toMatch(/^\d+\.\d+$/);
    // The root's history holds no publish signal at all: no delta went through it.
    expect((await historyOf(bed, run.runId)).signals).toBe(0);
  });

  it('resumes a client mid-step with the rest of the step: no gap, no duplicate', async () => {
    const content = Array.from({ length: 80 }, (_, i) => `t${i} `).join('');
    bed.server.script(text(content, { chunkSize: 4, delayMs: 25 }));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'resumer' }), 'talk');
    const url = `${bed.bridge.url}/runs/${run.runId}/events`;
    const first = await readSse(url, { token: TOKEN, timeoutMs: 30_000, maxEvents: 12 });
    const lastId = first.events.at(-1)!.id;
    expect(lastId).toMatch(/^\d+\.\d+$/);
    const rest = await readSse(url, { token: TOKEN, timeoutMs: 30_000, lastEventId: lastId });

    const all = [...agioEvents(first.events), ...agioEvents(rest.events)];
    const stepId = `${run.runId}:1`;
    const completed = all.find((e) => e.type === 'STEP_COMPLETED' && e.stepId === stepId)!;
    expect(completed.snapshot?.content).toBe(content);
    // Whatever arrived as deltas, on both connections together, is a gapless prefix of the step's text.
    expect(content.startsWith(streamedText(all, stepId))).toBe(true);
    expect(streamedText(all, stepId).length).toBeGreaterThan(content.length / 2);
    const durable = all.filter((e) => e.type !== 'STEP_DELTA');
    expect(durable.map((e) => e.offset)).toEqual(durable.map((_, i) => i));
  });

  it('keeps a lead small whose nested coder streams for seconds, while every token reaches the root stream', async () => {
    const coder = defineAgent({ name: 'coder', instructions: 'You are the coder.' });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'You are the lead.',
      tools: [asTool(coder, { description: 'Codes.', stream: 'full' })],
    });
    const tokens = Array.from({ length: 600 }, (_, i) => `k${i} `).join('');
    bed.server.scriptFor(
      'You are the lead.',
      toolCalls([toolCall('coder', { task: 'code' }, { id: 'call_coder' })]),
      text('done'),
    );
    bed.server.scriptFor('You are the coder.', text(tokens, { chunkSize: 5, delayMs: 5 }));
    const run = await bed.bridge.agio.start(lead, 'go');
    const events = agioEvents(
      (await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN, timeoutMs: 60_000 })).events,
    );

    const coderRun = `${run.runId}/tool/3-call_coder`;
    expect(streamedText(events, `${coderRun}:2`)).toBe(tokens); // system, user, then its answer
    const root = await historyOf(bed, run.runId);
    expect(root.events).toBeLessThanOrEqual(80);
  }, 60_000);
});
