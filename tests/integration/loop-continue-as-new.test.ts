// A long loop continues as new between iterations (docs/ARCHITECTURE.md, "Workflow agents and operator control"): with
// `continueAsNewEvery: 3`, twenty iterations run over seven workflow runs of one workflow id, carrying the loop
// position, the shared state and the Wire, so the stream's offsets stay continuous — read live during the run and read
// again afterwards.
import { loopAgent, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { readStream, expectWholeLogs, expectStoredLogs } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, agentOfRequest, agentStates, runChain, subAgent } from '../helpers/workflow-agents';

const ITERATIONS = 20;

describe('a loop that continues as new', () => {
  const bed = useTestBed();

  it('completes 20 iterations over 7 runs with continuous offsets, live and after the end, and the right timesLooped', async () => {
    for (let i = 0; i < ITERATIONS; i++) bed.server.scriptFor(agentKey('tick'), text(`tick ${i}`));
    const loop = loopAgent({
      name: 'clock',
      subAgents: [subAgent('tick', { outputKey: 'last' })],
      maxIterations: ITERATIONS,
      continueAsNewEvery: 3,
    });

    const run = await bed.agio.start(loop, 'tick tock', { state: { started: 'yes' } });
    const [live, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);
    const after = await readStream(bed.client, run.runId);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: `tick ${ITERATIONS - 1}` });
    expect(output.state).toEqual({ started: 'yes', last: `tick ${ITERATIONS - 1}` });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(Array.from({ length: ITERATIONS }, () => 'tick'));
    // Continued as new after iterations 3, 6, …, 18: seven runs of one workflow id.
    const chain = await runChain(bed.client, run.runId);
    expect(chain.map((r) => r.status)).toEqual([...Array.from({ length: 6 }, () => 'CONTINUED_AS_NEW'), 'COMPLETED']);
    expect(new Set(chain.map((r) => r.runId)).size).toBe(7);

    for (const events of [live, after]) {
      expectWholeLogs(events); // every event of every run's own log once, in order
      expect(events.filter((e) => e.type === 'RUN_STARTED' && e.depth === 0)).toHaveLength(1);
      expect(events.filter((e: AgioEvent) => e.type === 'RUN_COMPLETED' && e.depth === 0)).toEqual([events.at(-1)]);
      expect(agentStates(events)).toEqual(
        Array.from({ length: ITERATIONS }, (_, timesLooped) => ({ timesLooped, currentSubAgent: 'tick' })),
      );
      // Every iteration's child ran and reported once.
      const children = events.filter((e) => e.type === 'RUN_COMPLETED' && e.depth === 1).map((e) => e.runId);
      expect(children).toEqual(Array.from({ length: ITERATIONS }, (_, i) => `${run.runId}/loop-${i}/0-tick`));
    }
    expect(after).toEqual(live);
    // Its event log holds the whole stream: each run wrote what it added before continuing as new. (Read without the
    // stores, the stream's last page may come from a replay, which can time an event that follows a local activity a
    // few ms differently: timestamps are left out of the comparison.)
    await expectStoredLogs(bed.worker.stores.events, 'default', live);
    expect(live.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', data: { terminationReason: 'max_iterations' } });
  });
});
