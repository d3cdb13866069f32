// Many runs at once through the bridge: 200 runs started with POST /runs, each followed by its own SSE client
// from the moment it starts. Every run completes with its own answer, and every stream is whole: offsets 0..n with
// no gap or duplicate, the deltas adding up to the committed text, and the root's RUN_COMPLETED last.
import { defineAgent } from '../../common';
import { text, type RecordedRequest } from '../../devkit/scripted-model-server';
import { sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { expectWholeStream } from '../helpers/nested-runs';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';
const RUNS = 200;

/** The answer the scripted model gives to one run: it names the run's input, so crossed streams would show. */
const answerTo = (input: string) => `Answering "${input}" in a few streamed chunks.`;
const inputOf = (req: RecordedRequest) => sentMessages(req).find((m) => m.role === 'user')?.content ?? '';

describe(`${RUNS} concurrent runs with ${RUNS} SSE clients`, () => {
  const bed = useTestBed({ bridge: true, agents: [defineAgent({ name: 'crowd' })] });

  it('completes every run, and every stream is gap-free and carries its own run only', async () => {
    bed.server.setDefault((req) => text(answerTo(inputOf(req)), { chunkSize: 8, delayMs: 20 }));
    const inputs = Array.from({ length: RUNS }, (_, i) => `question ${i}`);

    const streams = await Promise.all(
      inputs.map(async (input) => {
        const started = await request(`${bed.bridge.url}/runs`, { token: TOKEN, body: { agent: 'crowd', input } });
        expect(started.status).toBe(201);
        const runId: string = started.body.runId;
        const { events, closedBy } = await readSse(`${bed.bridge.url}/runs/${runId}/events`, {
          token: TOKEN,
          timeoutMs: 240_000,
        });
        return { input, runId, closedBy, events: agioEvents(events) };
      }),
    );

    expect(new Set(streams.map((s) => s.runId)).size).toBe(RUNS);
    for (const { input, runId, closedBy, events } of streams) {
      expect(closedBy).toBe('server');
      expectWholeStream(events, runId);
      expect(events.every((e) => e.runId === runId && e.rootRunId === runId)).toBe(true);
      const answer = answerTo(input);
      expect(
        events
          .filter((e) => e.type === 'STEP_DELTA')
          .map((e) => e.delta?.content ?? '')
          .join(''),
      ).toBe(answer);
      expect(events.at(-1)?.data).toMatchObject({ response: answer, terminationReason: 'completed' });
    }
    expect(bed.server.requests).toHaveLength(RUNS);
  }, 300_000);
});
