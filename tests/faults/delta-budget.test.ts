// Without a live lane, deltas are signals into the root's history, and Temporal refuses signals past 10,000 per
// execution (a root cannot continue as new while its children run). A tree of five branches streaming at once
// used to spend that in minutes and die. Now deltas are batched more coarsely as the root's history fills and stop
// at the worker's budget, never the run: every branch completes, and every step's whole text is in its
// STEP_COMPLETED. (Scaled down: a budget of 150 events instead of 8,000.)
import { asTool, defineAgent, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const BUDGET = 150;
const BRANCHES = 5;

describe('streaming past the root history budget', () => {
  const bed = useTestBed({ workerOptions: { deltaBudget: { maxHistoryEvents: BUDGET, checkEveryMs: 200 } } });

  it('stops the deltas of five streaming branches at the budget, and the whole tree completes', async () => {
    const branch = (i: number) => defineAgent({ name: `b${i}`, instructions: `You are branch ${i}.` });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'You are the lead.',
      tools: Array.from({ length: BRANCHES }, (_, i) =>
        asTool(branch(i), { description: `Branch ${i}.`, stream: 'full' }),
      ),
    });
    const texts = Array.from({ length: BRANCHES }, (_, i) =>
      Array.from({ length: 400 }, (_, k) => `b${i}w${k} `).join(''),
    );
    bed.server.scriptFor(
      'You are the lead.',
      toolCalls(Array.from({ length: BRANCHES }, (_, i) => toolCall(`b${i}`, { task: 'talk' }, { id: `call_b${i}` }))),
      text('all branches done'),
    );
    for (let i = 0; i < BRANCHES; i++)
      bed.server.scriptFor(`You are branch ${i}.`, text(texts[i], { chunkSize: 6, delayMs: 8 }));

    const run = await bed.agio.start(lead, 'go');
    const [output, events] = await Promise.all([run.result(), readStream(bed.client, run.runId)]);

    expect(output.response).toBe('all branches done');
    expectWholeStream(events, run.runId);
    for (let i = 0; i < BRANCHES; i++) {
      const child = `${run.runId}/tool/${3 + i}-call_b${i}`;
      const completed = events.find(
        (e: AgioEvent) => e.type === 'STEP_COMPLETED' && e.runId === child && e.snapshot?.role === 'assistant',
      );
      expect(completed?.snapshot?.content).toBe(texts[i]);
    }
    // Deltas stopped at the budget: the root's history stayed near it (a check every 200 ms lets a few more in).
    const history = await run.workflow.fetchHistory();
    const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    expect(history.events!.length).toBeLessThan(BUDGET + 120);
    expect(events.filter((e) => e.type === 'STEP_DELTA').length).toBeGreaterThan(0);
    expect(signals).toBeLessThan(BUDGET);
  }, 120_000);
});
