// A reader without the stores (a plain AgioClient's RunHandle.stream) reads a run that has continued as new from its
// start: the events the run no longer holds are read from its earlier executions (a Query of a closed execution, which
// a worker answers by replaying it). Before, such a reader behind the run's tail got EventsGoneError at once, though
// the events were in the run's event log; a loaded machine's slow reader met it in large-log.test.ts.
import { defineAgent, type AgioEvent } from '../../common';
import { eventsQuery } from '../../common/messages';
import { text } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { bigOutputTurns, heldAnswer } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';

const TURNS = 3;
const CALLS = 5;

describe('a run that has continued as new', () => {
  const bed = useTestBed({ tools: testTools });

  it('streams whole from its start to a reader without the event log', async () => {
    const last = heldAnswer(text('all collected'));
    bed.server.script(...bigOutputTurns(TURNS, CALLS, 60_000), last.answer);
    // Each turn's 300 kB of outputs is more than the 256 kB tail a run carries across continue-as-new (after each
    // turn).
    const run = await bed.agio.start(
      defineAgent({ name: 'collector', tools: ['big_output'], maxSteps: 10 }),
      'collect',
      {
        limits: { continueAsNewAfterModelCalls: 1 },
      },
    );
    const lastCall = `call_${TURNS - 1}_${CALLS - 1}`;
    const events: AgioEvent[] = [];
    const read = async () => {
      for await (const event of run.stream({ maxPollMs: 50 })) {
        events.push(event);
        if (event.type === 'STEP_COMPLETED' && event.snapshot?.toolCallId === lastCall) return;
      }
    };
    // The first reader follows the run as it goes; the second starts once the run holds only a tail of its log.
    await read();
    const held = await bed.client.workflow.getHandle(run.runId).query(eventsQuery, { after: -1, limit: 1 });
    expect(held.firstOffset).toBeGreaterThan(CALLS);
    const followed = events.splice(0);
    await read();
    last.release();
    await run.result();

    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    // The same events; a replay may time one differently (workflow time read after a local activity), so not compared.
    const untimed = ({ timestamp: _, ...event }: AgioEvent) => event;
    expect(events.map(untimed)).toEqual(followed.map(untimed));
  }, 120_000);
});
