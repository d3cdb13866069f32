// A run whose early events pass 4 MB (a long input, 80 tool outputs of 60 kB) is still readable by a fresh reader
// while it runs: the events Query answers pages of at most about 1 MB (always at least one event), RUN_STARTED
// previews a long input instead of copying it, and the events the run no longer holds after continuing as new (its
// history passes Temporal's suggestion) are read from its event log. Before, the first page of such a run was over
// what a Query may answer and a new SSE client received nothing; and the run could not continue as new at all with
// its 300 kB input carried twice ("does not fit into a continue-as-new input").
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { bigOutputTurns, heldAnswer } from '../helpers/agent-runs';
import { waitForEvent } from '../helpers/nested-runs';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TURNS = 8;
const CALLS = 10;

describe('a run with more than 4 MB of early events', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  it('streams whole to a fresh SSE reader while it runs, and to one that resumes late in it', async () => {
    const last = heldAnswer(text('all collected'));
    bed.server.script(...bigOutputTurns(TURNS, CALLS, 60_000), last.answer);
    const input = 'i'.repeat(300_000);
    const run = await bed.bridge.agio.start(
      defineAgent({ name: 'collector', tools: ['big_output'], maxSteps: 10 }),
      input,
    );
    // The run now waits for its last answer, with 80 outputs of 60 kB and a 300 kB input in its log.
    const lastOutput = await waitForEvent(
      bed.client,
      run.runId,
      (e) => e.type === 'STEP_COMPLETED' && e.snapshot?.toolCallId === `call_${TURNS - 1}_${CALLS - 1}`,
    );

    // Both readers get every event so far while the run still waits; only then does its last answer come.
    const newest = { reading: -1, resuming: -1 };
    const offsetOf = (frame: SseEvent) => (JSON.parse(frame.data) as { offset: number }).offset;
    const reading = readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: 'test-token',
      timeoutMs: 60_000,
      onEvent: (frame) => (newest.reading = offsetOf(frame)),
    });
    const resuming = readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: 'test-token',
      timeoutMs: 60_000,
      lastEventId: '40',
      onEvent: (frame) => (newest.resuming = offsetOf(frame)),
    });
    await waitFor(
      'both readers to reach the running run’s newest event',
      () => newest.reading >= lastOutput.offset && newest.resuming >= lastOutput.offset,
      60_000,
    );
    last.release();
    const [all, rest] = await Promise.all([reading, resuming]);
    expect([...all.events, ...rest.events].filter((f) => f.event === 'error')).toEqual([]);

    const events = agioEvents(all.events);
    expect(all.closedBy).toBe('server');
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    expect(events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0)).toBeGreaterThan(4_500_000);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', data: { response: 'all collected' } });
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', data: { inputChars: 300_000 } });
    expect((events[0].data as { input: string }).input.length).toBeLessThan(2100);
    // The whole input is in the first user step.
    expect(events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'user')?.snapshot?.content).toBe(
      input,
    );
    expect(agioEvents(rest.events).map((e) => e.offset)).toEqual(events.slice(41).map((e) => e.offset));
  }, 120_000);
});
