// A provider outage is waited out, visibly: eight 503s in a row (more than the six attempts that used to fail the
// run) and the run completes once the provider answers; from the third attempt on, the run's stream carries
// MODEL_UNAVAILABLE with the reason, the attempt and when the next try is due. (That malformed answers stay bounded
// is tested in tests/unit/model-outage.test.ts: on a real server it is a 31 s wait for the backoff.) While it lasts,
// GET /runs/:id and GET /runs/:id/state (what `agio status` and `agio state` print) say so too.
import { defineAgent, ErrorType, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { request } from '../helpers/bridge';
import { expectWholeStream, readStream, waitForEvent } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

/** A 503 that asks to be tried again after `ms` (the provider's Retry-After, honoured like a 429's). */
const unavailable = (ms: number) => ({
  error: {
    status: 503,
    body: { error: { message: 'upstream overloaded' } },
    headers: { 'retry-after-ms': String(ms) },
  },
});

describe('a model provider outage', () => {
  const bed = useTestBed({ bridge: true });

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
      expect(e.data).toMatchObject({
        errorType: ErrorType.ModelServerError,
        reason: expect.stringContaining('HTTP 503'),
      });
      const data = e.data as { nextAttemptAt: number; failingSince: number };
      expect(data.nextAttemptAt - e.timestamp).toBe(200);
      expect(data.failingSince).toBeLessThanOrEqual(e.timestamp);
    }
  });

  it('shows in the run status and state while it lasts, and no longer once the provider answers', async () => {
    bed.server.script(...Array.from({ length: 5 }, () => unavailable(1500)), text('recovered'));
    const run = await bed.agio.start(defineAgent({ name: 'patient' }), 'hello');
    await waitForEvent(bed.client, run.runId, (e) => e.type === 'MODEL_UNAVAILABLE' && e.attempt === 3);

    const status = await request(`${bed.bridge.url}/runs/${run.runId}`, { token: 'test-token' });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      status: 'running',
      modelUnavailable: {
        attempt: expect.any(Number),
        errorType: ErrorType.ModelServerError,
        reason: expect.stringContaining('HTTP 503'),
      },
    });
    const { modelUnavailable } = status.body as {
      modelUnavailable: { attempt: number; retryUntil: string; lastFailedAt: string };
    };
    expect(modelUnavailable.attempt).toBeGreaterThanOrEqual(3);
    // The retry window (default 6 h) is when the run would stop waiting.
    expect(Date.parse(modelUnavailable.retryUntil) - Date.parse(modelUnavailable.lastFailedAt)).toBeGreaterThan(
      5 * 60 * 60_000,
    );
    const state = await request(`${bed.bridge.url}/runs/${run.runId}/state`, { token: 'test-token' });
    expect(state.body).toMatchObject({
      status: 'running',
      modelUnavailable: { errorType: ErrorType.ModelServerError },
    });
    expect((await run.state()).modelUnavailable?.reason).toContain('HTTP 503');

    expect((await run.result()).response).toBe('recovered');
    const after = await request(`${bed.bridge.url}/runs/${run.runId}`, { token: 'test-token' });
    expect(after.body.status).toBe('completed');
    expect(after.body.modelUnavailable).toBeUndefined();
  }, 60_000);
});
