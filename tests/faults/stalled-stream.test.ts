// A model stream that stops moving is given up and tried again after the run's modelStreamIdleMs, although its
// worker keeps heartbeating. Before, the heartbeat (on a timer) kept the stalled call alive until its 10-minute
// start-to-close timeout.
import { defineAgent, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

describe('a stalled model stream', () => {
  const bed = useTestBed();

  it('is retried after modelStreamIdleMs, and the run completes with the second answer', async () => {
    // Headers sent, then no chunk for 60 s.
    bed.server.script(text('never seen', { firstChunkDelayMs: 60_000 }), text('moving again'));
    const startedAt = Date.now();
    const run = await bed.agio.start(defineAgent({ name: 'stalled' }), 'hello', {
      limits: { modelStreamIdleMs: 1500 },
    });

    expect((await run.result()).response).toBe('moving again');
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(bed.server.requests).toHaveLength(2);
    const events: AgioEvent[] = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
  }, 60_000);
});
