// Continue-as-new carries the Wire over: a run that continues as new every two model calls streams one log with
// offsets 0..n, one RUN_STARTED and one RUN_COMPLETED, read live and read again after it has finished.
import { defineAgent, type AgioEvent } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { runChain } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const TURNS = 6;

describe('the stream of a run that continues as new', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  it('keeps offsets continuous across runs, with one RUN_STARTED and one RUN_COMPLETED, live and after the end', async () => {
    for (let i = 0; i < TURNS; i++)
      bed.server.script(
        toolCalls([toolCall('record', { label: `turn ${i}` }, { id: `call_${i}` })], { chunkSize: 6, delayMs: 2 }),
      );
    bed.server.script(text('six turns later, done', { chunkSize: 3, delayMs: 2 }));
    const agent = defineAgent({ name: 'long-haul', tools: ['record'] });

    const run = await bed.bridge.agio.start(agent, 'record six times', { limits: { continueAsNewAfterModelCalls: 2 } });
    const live = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN });
    const output = await run.result();
    const after = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN });

    expect(output.response).toBe('six turns later, done');
    expect(output.metrics).toMatchObject({ modelCalls: TURNS + 1, toolCalls: TURNS });
    // Seven model calls, two per run: the workflow continued as new three times.
    const chain = await runChain(bed.client, run.runId);
    expect(chain.map((r) => r.status)).toEqual([
      'CONTINUED_AS_NEW',
      'CONTINUED_AS_NEW',
      'CONTINUED_AS_NEW',
      'COMPLETED',
    ]);
    expect(new Set(chain.map((r) => r.runId)).size).toBe(4);

    for (const read of [live, after]) {
      const events: AgioEvent[] = agioEvents(read.events);
      expect(read.closedBy).toBe('server');
      expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
      expect(events.filter((e) => e.type === 'RUN_STARTED')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'RUN_COMPLETED')).toHaveLength(1);
      expect(events[0].type).toBe('RUN_STARTED');
      expect(events.at(-1)).toMatchObject({
        type: 'RUN_COMPLETED',
        depth: 0,
        data: { response: 'six turns later, done' },
      });
      // Every committed step exactly once, in order: user, then (assistant, tool) × 6, then the answer.
      const steps = events.filter((e) => e.type === 'STEP_COMPLETED').map((e) => e.snapshot!);
      expect(steps.map((s) => s.index)).toEqual(output.steps.map((s) => s.index));
      expect(steps.map((s) => s.role)).toEqual([
        'user',
        ...Array.from({ length: TURNS }, () => ['assistant', 'tool']).flat(),
        'assistant',
      ]);
    }
    expect(agioEvents(after.events)).toEqual(agioEvents(live.events));
  });
});
