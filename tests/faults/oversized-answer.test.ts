// A model answer larger than a step can hold ends the run clearly, once: a 3 MB answer is cut off at the run's
// maxModelOutputBytes and fails the run with a non-retryable ModelOutputTooLarge, after one model call. Before, every
// attempt downloaded the whole answer again, and the run stayed RUNNING with no end.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { defineAgent, ErrorType } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const THREE_MB = 3 * 1024 * 1024;

describe('an oversized model answer', () => {
  const bed = useTestBed();

  it('fails the run at once with ModelOutputTooLarge, after one call', async () => {
    bed.server.script(text('y'.repeat(THREE_MB), { chunkSize: 64 * 1024 }));
    const run = await bed.agio.start(defineAgent({ name: 'verbose' }), 'write a lot');
    const err = await run.result().then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(ErrorType.ModelOutputTooLarge);
    expect(cause.message).toContain('maxModelOutputBytes');
    expect(bed.server.requests).toHaveLength(1);
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId, 'RUN_FAILED');
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      data: { error: { type: ErrorType.ModelOutputTooLarge } },
    });
  }, 60_000);

  it("uses the run's own limit", async () => {
    bed.server.script(
      text('z'.repeat(90_000), { chunkSize: 16 * 1024 }),
      text('z'.repeat(150_000), { chunkSize: 16 * 1024 }),
    );
    const limits = { maxModelOutputBytes: 100_000 };
    const fits = await bed.agio.start(defineAgent({ name: 'bounded-1' }), 'write some', { limits });
    expect((await fits.result()).response).toHaveLength(90_000);
    const over = await bed.agio.start(defineAgent({ name: 'bounded-2' }), 'write more', { limits });
    const err = await over.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe(ErrorType.ModelOutputTooLarge);
  }, 60_000);
});
