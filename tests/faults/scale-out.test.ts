// Scale-out on the live lane: two worker processes and two bridge processes on one Temporal server, sharing NATS
// JetStream, and 50 streaming runs. Mid-stream one worker and one bridge are killed with SIGKILL. Every client of
// the dead bridge reconnects to the surviving one with its Last-Event-ID and gets every committed event once, in
// order; every run completes (a model call lost with its worker runs again on the other, after a STEP_RETRY).
import { AgioClient } from '../../client/agio-client';
import { defineAgent, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { startBridgeProcess, type BridgeProcess } from '../helpers/bridge-process';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';
import { waitFor } from '../helpers/workflow-agents';
import {
  killWorkerProcess,
  startTestWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
} from '../helpers/worker-process';

const RUNS = 50;
const TOKEN = 'test-token';

/**
 * Follows a run's stream, reconnecting to the next bridge (with the last id it had) whenever a connection ends early.
 */
async function follow(runId: string, bridges: () => string[]): Promise<{ frames: SseEvent[]; reconnects: number }> {
  const frames: SseEvent[] = [];
  let reconnects = -1;
  const done = () => frames.some((f) => f.event === 'RUN_COMPLETED' && (JSON.parse(f.data) as AgioEvent).depth === 0);
  for (let i = 0; !done() && i < 20; i++) {
    reconnects++;
    const urls = bridges();
    const url = urls[i % urls.length];
    await readSse(`${url}/runs/${runId}/events`, {
      token: TOKEN,
      timeoutMs: 120_000,
      onEvent: (f) => frames.push(f),
      ...(frames.length ? { lastEventId: frames.at(-1)!.id } : {}),
    }).catch(() => undefined);
  }
  return { frames, reconnects };
}

describe('two workers and two bridges on the live lane, one of each killed mid-stream', () => {
  const bed = useTestBed({ worker: false, strictModel: false });
  const workers: WorkerProcess[] = [];
  const bridges: BridgeProcess[] = [];
  afterAll(async () => {
    for (const b of bridges) b.kill('SIGKILL');
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
  });

  it('completes every run, and every client gets every committed event once, in order', async () => {
    const taskQueue = uniqueId('scale');
    const natsUrl = testEnv('natsUrl');
    const content = (i: number) => Array.from({ length: 60 }, (_, k) => `r${i}w${k} `).join('');
    let next = 0;
    const contents = new Map<string, string>();
    bed.server.setDefault((req) => {
      const input = JSON.stringify(req.body.messages);
      const tag = /run-(\d+)/.exec(input)?.[1] ?? String(next++);
      const answer = contents.get(tag) ?? content(Number(tag));
      contents.set(tag, answer);
      return text(answer, { chunkSize: 6, delayMs: 60 });
    });
    workers.push(
      ...(await Promise.all([0, 1].map(() => startTestWorkerProcess({ taskQueue, model: bed.model(), natsUrl })))),
    );
    bridges.push(...(await Promise.all([0, 1].map(() => startBridgeProcess({ taskQueue, natsUrl })))));
    const alive = new Set(bridges.map((b) => b.url));
    const agio = new AgioClient(bed.client, { taskQueue });

    const agent = defineAgent({ name: 'streamer' });
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        agio.start(agent, `run-${i}`, { limits: { modelHeartbeatTimeoutMs: 2000 } }),
      ),
    );
    // Half the clients start on each bridge; the dead one drops out of the list they reconnect to.
    const following = runs.map((run, i) =>
      follow(run.runId, () =>
        (i % 2 === 0 ? [bridges[0].url, bridges[1].url] : [bridges[1].url, bridges[0].url]).filter((u) => alive.has(u)),
      ),
    );
    // Kill once every run's model call is streaming (each takes about 4 s), not after a fixed sleep: on a loaded
    // machine the runs may not have reached their model call yet, and then no call is lost with the worker.
    await waitFor('every run to be calling the model', () => bed.server.requests.length >= RUNS, 60_000);
    alive.delete(bridges[0].url);
    bridges[0].kill('SIGKILL');
    await killWorkerProcess(workers[0]);

    const outputs = await Promise.all(runs.map((r) => r.result()));
    const streams = await Promise.all(following);

    for (const [i, run] of runs.entries()) {
      expect(outputs[i].response).toBe(contents.get(String(i)));
      const durable = agioEvents(streams[i].frames).filter((e) => e.type !== 'STEP_DELTA');
      // Every committed event once, in order, across the reconnect.
      expect(durable.map((e) => e.offset)).toEqual(durable.map((_, k) => k));
      expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', runId: run.runId });
      expect(
        durable.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant')?.snapshot?.content,
      ).toBe(contents.get(String(i)));
    }
    // The clients of the killed bridge reconnected to the other one; model calls lost with the killed worker ran
    // again (STEP_RETRY); and deltas did stream, from both attempts' lanes.
    expect(streams.filter((s, i) => i % 2 === 0 && s.reconnects > 0).length).toBeGreaterThan(0);
    const all = streams.map((s) => agioEvents(s.frames));
    expect(all.filter((events) => events.some((e) => e.type === 'STEP_RETRY')).length).toBeGreaterThan(0);
    expect(all.every((events) => events.some((e) => e.type === 'STEP_DELTA'))).toBe(true);
  }, 240_000);
});
