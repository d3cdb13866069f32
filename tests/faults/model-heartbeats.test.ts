// What a long model call costs and how fast it is recovered, with the default modelHeartbeatTimeoutMs (9 s):
// a 30 s streaming call records at most 10 heartbeats on the server (counted from the pending activity's
// lastHeartbeatTime), a call lost with its SIGKILLed worker starts again on the other worker within 10 s, and a
// cancel still reaches the running call (its stream stops) within about 5 s.
import { AgioClient } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { text, type ScriptedTurn } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { waitFor, waitForHeartbeat } from '../helpers/workflow-agents';
import { failoverWorkers, killWorkerProcess, startTestWorkerProcess } from '../helpers/worker-process';

const agent = defineAgent({ name: 'long-talker' });

/** An answer streamed as `seconds` chunks one second apart. */
const pacedAnswer = (seconds: number): ScriptedTurn => text('ab'.repeat(seconds), { chunkSize: 2, delayMs: 1000 });

describe('a long model call', () => {
  const bed = useTestBed({ worker: false });
  const workers = failoverWorkers(afterEach);
  let worker: TestWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  /** Resolves with the time of the first chunk the model server writes for request `index`. */
  const chunkOf = (index: number) =>
    new Promise<number>((resolve) => {
      bed.server.onChunk = (c) => {
        if (c.requestIndex === index) resolve(c.writtenAt);
      };
    });

  it('records at most 10 heartbeats in 30 s', async () => {
    worker = await startTestWorker({ model: bed.model() });
    const agio = new AgioClient(bed.client, { taskQueue: worker.taskQueue });
    bed.server.script(pacedAnswer(30));
    const run = await agio.start(agent, 'talk for half a minute');
    const handle = bed.client.workflow.getHandle(run.runId);
    // Every heartbeat the server records moves the pending callModel's lastHeartbeatTime.
    const beats = new Set<number>();
    let done = false;
    const result = run.result().finally(() => (done = true));
    while (!done) {
      const { raw } = await handle.describe();
      for (const a of raw.pendingActivities ?? []) {
        const at = a.lastHeartbeatTime;
        if (a.activityType?.name === 'callModel' && at) beats.add(Number(at.seconds) * 1000 + (at.nanos ?? 0) / 1e6);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const output = await result;

    const tookMs = output.steps.at(-1)!.metrics!.durationMs!;
    expect(tookMs).toBeGreaterThan(29_000);
    expect(beats.size).toBeLessThanOrEqual(10);
    expect(beats.size).toBeGreaterThanOrEqual(5);
    console.log(`30 s model call: ${beats.size} heartbeats recorded in ${tookMs} ms`);
  }, 90_000);

  it('lost with its SIGKILLed worker, starts again on the other worker within 10 s', async () => {
    const taskQueue = uniqueId('lost-call');
    workers.first = await startTestWorkerProcess({ taskQueue, model: bed.model() });
    bed.server.script(pacedAnswer(60), text('said again'));
    const agio = new AgioClient(bed.client, { taskQueue });
    const streaming = chunkOf(0);
    const run = await agio.start(agent, 'talk while your worker dies');
    await streaming;
    // The other worker is polling before the first one dies, as in a fleet.
    workers.second = await startTestWorker({ model: bed.model(), taskQueue });
    const restarted = chunkOf(1);
    await killWorkerProcess(workers.first);
    const killedAt = Date.now();
    workers.first = undefined;

    const restartMs = (await restarted) - killedAt;
    expect((await run.result()).response).toBe('said again');
    expect(bed.server.requests).toHaveLength(2);
    expect(restartMs).toBeLessThan(10_000);
    console.log(`model call lost with its worker: restarted ${restartMs} ms after the SIGKILL`);
  }, 90_000);

  it('cancelled, stops streaming within about 5 s', async () => {
    worker = await startTestWorker({ model: bed.model() });
    const agio = new AgioClient(bed.client, { taskQueue: worker.taskQueue });
    bed.server.script(pacedAnswer(60));
    const streaming = chunkOf(0);
    const run = await agio.start(agent, 'talk until cancelled');
    await streaming;
    let lastChunkAt = 0;
    bed.server.onChunk = (c) => (lastChunkAt = c.writtenAt);
    // Let a heartbeat pass first, so the cancel lands anywhere in the interval between two.
    await waitForHeartbeat(bed.client, run.runId);
    const cancelledAt = Date.now();
    await run.cancel();

    await expect(run.result()).rejects.toThrow();
    const endedMs = Date.now() - cancelledAt;
    // The call has hung up once its connection closed before the answer ended.
    await waitFor('the cancelled call to hang up', () => bed.server.abandoned.includes(0), 20_000);
    const stoppedMs = lastChunkAt - cancelledAt;
    expect(endedMs).toBeLessThan(5_000);
    expect(stoppedMs).toBeLessThan(6_000);
    console.log(`cancel: run ended after ${endedMs} ms, the model stream stopped after ${stoppedMs} ms`);
  }, 90_000);
});
