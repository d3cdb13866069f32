// A deploy: a worker told to stop (SIGTERM) mid model stream lets the call finish within its shutdown grace time,
// then exits cleanly; the run goes on on the replacement worker without calling the model again. With the SDK's
// default grace time (0), the stream was cut, and the model call ran again on the next worker.
import { AgioClient } from '../../client/agio-client';
import { defineAgent, type AgioEvent } from '../../common';
import { slowAnswer } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, startTestWorkerProcess } from '../helpers/worker-process';

const REPLY = 'a reply that streams for a couple of seconds';

describe('a worker stopped with SIGTERM mid model stream', () => {
  const bed = useTestBed({ worker: false });
  const workers = failoverWorkers(afterEach);

  it('finishes the call before it exits; the run completes with one model call', async () => {
    const taskQueue = uniqueId('deploy');
    workers.first = await startTestWorkerProcess({ taskQueue, model: bed.model(), shutdownGraceTime: '20s' });
    const agio = new AgioClient(bed.client, { taskQueue });
    const slow = slowAnswer(bed.server, REPLY, 3);
    bed.server.script(slow.answer);
    const run = await agio.start(defineAgent({ name: 'deployed' }), 'say something slowly');
    const events: AgioEvent[] = [];
    const streamed = (async () => {
      for await (const event of run.stream()) events.push(event);
    })();

    await slow.reached;
    workers.first.kill('SIGTERM');
    workers.second = await startTestWorker({ model: bed.model(), taskQueue });

    expect((await run.result()).response).toBe(REPLY);
    expect(await workers.first.exited).toEqual({ code: 0, signal: null });
    await streamed;
    expect(bed.server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'STEP_RETRY')).toEqual([]);
    expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
  }, 60_000);
});
