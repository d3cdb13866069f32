// A run of hundreds of steps keeps its model input bounded: compaction swaps large outputs for references, but every
// step still leaves its call and reference behind, so past the compaction threshold the oldest turns are condensed
// into a summary the model writes. Before, such a run failed with ModelInputTooLarge after a few dozen steps here (a
// few hundred at the default limit). The limits are scaled down (20 kB of model input, continue-as-new every 30 calls)
// so that 80 steps condense several times and continue as new twice.
import { defineAgent, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { CONDENSATION_MARKER } from '../../workflows/agent-loop/condensation';
import { readStream, requestsOf } from '../helpers/nested-runs';
import { replayEveryExecution } from '../helpers/replay';
import { testTools } from '../fixtures/test-tools';
import { useTestBed } from '../helpers/test-bed';

const STEPS = 80;
const limits = { compactModelInputBytes: 15_000, maxModelInputBytes: 20_000, continueAsNewAfterModelCalls: 30 };

const messagesOf = (req: RecordedRequest) =>
  (req.body as { messages: { role: string; content: string | null }[] }).messages;
const requestBytes = (req: RecordedRequest) => Buffer.byteLength(JSON.stringify(messagesOf(req)));

describe('an agent of many steps', () => {
  const bed = useTestBed({ tools: testTools, strictModel: false });

  it('condenses its oldest turns into summaries and completes, every model call within maxModelInputBytes', async () => {
    let summaries = 0;
    bed.server.scriptFor(
      CONDENSATION_MARKER,
      ...Array.from({ length: 40 }, () => () => text(`summary ${++summaries}: read ${STEPS} outputs so far, all fine`)),
    );
    bed.server.script(
      ...Array.from({ length: STEPS }, (_, i) =>
        toolCalls([toolCall('big_output', { bytes: 3000 }, { id: `call_${i}` })]),
      ),
      text('done'),
    );
    const agent = defineAgent({ name: 'reader', tools: ['big_output'], maxSteps: STEPS + 10 });
    const run = await bed.agio.start(agent, 'read everything', { limits });
    const [output, events] = await Promise.all([run.result(), readStream(bed.client, run.runId)]);

    expect(bed.server.unexpected).toHaveLength(0);
    expect(output.response).toBe('done');
    expect(output.terminationReason).toBe('completed');
    // Every call, the condensation calls included, stayed within the limit.
    expect(Math.max(...bed.server.requests.map(requestBytes))).toBeLessThanOrEqual(limits.maxModelInputBytes);

    const condensed = events.filter(
      (e): e is AgioEvent & { data: Record<string, unknown> } => e.type === 'CONTEXT_CONDENSED',
    );
    expect(condensed.length).toBeGreaterThanOrEqual(2);
    expect(condensed.length).toBe(summaries);
    // Each condensation folds the previous summary in and goes further.
    for (const [i, e] of condensed.entries()) {
      expect(e.data.round).toBe(i + 1);
      expect(e.data.fromStep).toBe(condensed[0].data.fromStep);
      expect(Number(e.data.bytesAfter)).toBeLessThan(Number(e.data.bytesBefore));
      if (i > 0) expect(Number(e.data.toStep)).toBeGreaterThan(Number(condensed[i - 1].data.toStep));
    }
    const asked = requestsOf(bed.server, CONDENSATION_MARKER);
    expect(asked).toHaveLength(summaries);
    expect(messagesOf(asked[1])[1].content).toContain('[earlier summary of steps');
    expect(messagesOf(asked[0])[1].content).toContain('read everything');
    // The model's last call reads the newest summary in place of the old turns, after its task.
    const last = messagesOf(bed.server.requests.at(-1)!);
    const summary = last.find((m) => m.content?.startsWith("[Summary of this run's steps"));
    expect(summary?.content).toContain(`summary ${summaries}:`);
    expect(last.findIndex((m) => m.content === 'read everything')).toBeLessThan(last.indexOf(summary!));
    // The summaries' tokens count in the run's usage.
    const modelTokens = output.steps.reduce(
      (n, s) => n + (s.role === 'assistant' ? (s.usage?.totalTokens ?? 0) : 0),
      0,
    );
    expect(output.usage.totalTokens).toBeGreaterThan(modelTokens);

    // The originals are kept: the stores hold every step as it was, with its whole tool call.
    const stored = await bed.worker.stores.sessions.listSteps('default', run.runId);
    const calls = stored.filter((s) => s.role === 'assistant' && s.toolCalls?.length);
    expect(calls).toHaveLength(STEPS);
    expect(stored.find((s) => s.toolCallId === 'call_0')?.content).toMatch(/^abcdefghij/);
    // Every execution of the run (it continued as new) replays: condensation is deterministic.
    expect(await replayEveryExecution(bed.client, run.runId)).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
