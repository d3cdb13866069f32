// Cancelling a run stops its streaming model call promptly: the model server stops being read within about 5 s. The
// cancellation reaches the activity in the answer to its next heartbeat, and a model call beats every 4 s at most
// (activities/model/call-model.ts). Before the worker capped the SDK's throttle, heartbeats were held back for 0.8 ×
// the heartbeat timeout (16 s then), so a cancelled run's stream ran on for up to that long.
import { isRunFailure } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';
import { waitFor, waitForHeartbeat } from '../helpers/workflow-agents';

describe('cancelling a run mid model stream', () => {
  const bed = useTestBed();

  it('stops the stream within about 5 s', async () => {
    const chunksAt: number[] = [];
    let first: () => void;
    const streaming = new Promise<void>((resolve) => (first = resolve));
    bed.server.onChunk = ({ writtenAt }) => {
      chunksAt.push(writtenAt);
      first();
    };
    // 150 chunks, one every 200 ms: 30 s of streaming if nothing stops it.
    bed.server.script(text('x'.repeat(300), { chunkSize: 2, delayMs: 200 }));
    const run = await bed.agio.start(defineAgent({ name: 'cancelled-mid-stream' }), 'talk for a long time');
    await streaming;
    await waitForHeartbeat(bed.client, run.runId); // the cancel then reaches the call at its next beat
    const cancelledAt = Date.now();
    await run.cancel();
    expect(isRunFailure(await run.result().catch((e: unknown) => e))).toBe(true);
    // The call hangs up (its connection closes before the answer ends); one that went on would show chunks below.
    await waitFor('the cancelled call to hang up', () => bed.server.abandoned.includes(0), 40_000);

    const after = chunksAt.filter((t) => t > cancelledAt + 5500);
    expect(after).toEqual([]);
    expect(chunksAt.length).toBeLessThan(60);
  }, 60_000);
});
