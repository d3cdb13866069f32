// A provider outage is waited out, visibly: eight 503s in a row (more than the six attempts that used to fail the
// run) and the run completes once the provider answers; from the third attempt on, the run's stream carries
// MODEL_UNAVAILABLE with the reason, the attempt and when the next try is due. (That malformed answers stay bounded
// is tested in tests/unit/model-outage.test.ts: on a real server it is a 31 s wait for the backoff.)
import { defineAgent, ErrorType, type AgioEvent } from '../../common';
import { text } from '../../worker/dev-server/scripted-model-server';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

/** A 503 that asks to be tried again after `ms` (the provider's Retry-After, honoured like a 429's). */
const unavailable = (ms: number) => ({ error: { status: 503, body: { error: { message: 'upstream overloaded' } }, headers: { 'retry-after-ms': String(ms) } } });

describe('a model provider outage', () => {
  const bed = useTestBed();

  it('is retried past the old attempt cap, announced on the stream, and the run completes', async () => {
    bed.server.script(...Array.from({ length: 8 }, () => unavailable(200)), text('back again'));
    const run = await bed.agio.start(defineAgent({ name: 'outlasting' }), 'hello');

    expect((await run.result()).response).toBe('back again');
    expect(bed.server.requests).toHaveLength(9);
    const events: AgioEvent[] = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    const outage = events.filter((e) => e.type === 'MODEL_UNAVAILABLE');
    expect(outage.map((e) => e.attempt)).toEqual([3, 4, 5, 6, 7, 8]);
    for (const e of outage) {
      expect(e.stepId).toBe(`${run.runId}:1`);
      expect(e.data).toMatchObject({ errorType: ErrorType.ModelServerError, reason: expect.stringContaining('HTTP 503') });
      const data = e.data as { nextAttemptAt: number; failingSince: number };
      expect(data.nextAttemptAt - e.timestamp).toBe(200);
      expect(data.failingSince).toBeLessThanOrEqual(e.timestamp);
    }
  });
});
