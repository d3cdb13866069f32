// A store outage never fails a run: the run's store writes wait it out. The session store here refuses its first
// six writes (as a MongoDB that is restarting would, with a connection error), more than the five attempts that used
// to fail the run; the run still completes, and its record and steps are all stored once the store answers.
import { defineAgent } from '../../common';
import { createMemoryStores, type Stores } from '../../stores';
import { text } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';

const OUTAGE_WRITES = 6;

/** Memory stores whose session store throws on its first `failures` writes. */
function storesDownFor(failures: number): { stores: Stores; refused: () => number } {
  const stores = createMemoryStores();
  let refused = 0;
  const { sessions } = stores;
  for (const method of ['recordRun', 'appendSteps'] as const) {
    const real = sessions[method].bind(sessions) as (...args: unknown[]) => Promise<unknown>;
    (sessions as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      if (refused < failures) {
        refused++;
        throw new Error('connection to the store was refused (the store is restarting)');
      }
      return real(...args);
    };
  }
  return { stores, refused: () => refused };
}

describe('a store outage', () => {
  const down = storesDownFor(OUTAGE_WRITES);
  const bed = useTestBed({ stores: async () => ({ stores: down.stores, close: async () => undefined }) });

  it('is waited out: the run completes and is stored whole', async () => {
    bed.server.script(text('stored after all'));
    const run = await bed.agio.start(defineAgent({ name: 'patient-writer' }), 'hello', { sessionId: 'outage-session' });

    expect((await run.result()).response).toBe('stored after all');
    expect(down.refused()).toBe(OUTAGE_WRITES);
    const runs = await down.stores.sessions.listRuns('default', 'outage-session');
    expect(runs).toEqual([expect.objectContaining({ runId: run.runId, status: 'completed' })]);
    const steps = await down.stores.sessions.listSteps('default', run.runId);
    expect(steps.map((s) => s.role)).toEqual(['user', 'assistant']);
  }, 60_000);
});
