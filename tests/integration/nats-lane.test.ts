// The live lane across processes, on NATS JetStream: the worker and each bridge have their own connection and share
// nothing but NATS. Deltas reach SSE clients without any workflow history, a client that reconnects to another
// bridge mid-step gets the rest of the step with no gap and no duplicate, and when NATS goes away mid-stream the
// runs complete and clients still get every committed event.
import { defineAgent, type AgioEvent } from '../../common';
import { NatsLane } from '../../live/nats-lane';
import { startNatsServer, type NatsServer } from '../../devkit/nats-server';
import { text } from '../../devkit/scripted-model-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { DeferredLane } from '../helpers/deferred-lane';
import { agioEvents, readSse } from '../helpers/sse-client';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `).join('');
const streamedText = (events: AgioEvent[], stepId: string) =>
  events
    .filter((e) => e.type === 'STEP_DELTA' && e.stepId === stepId)
    .map((e) => e.delta?.content ?? '')
    .join('');
const durableOffsetsAreWhole = (events: AgioEvent[]) => {
  const durable = events.filter((e) => e.type !== 'STEP_DELTA');
  expect(durable.map((e) => e.offset)).toEqual(durable.map((_, i) => i));
};

describe('the live lane on NATS JetStream', () => {
  const workerLane = new DeferredLane();
  const bridgeLane = new DeferredLane();
  const otherLane = new DeferredLane();
  let other: TestBridge;
  beforeAll(async () => {
    const url = testEnv('natsUrl');
    [workerLane.target, bridgeLane.target, otherLane.target] = await Promise.all([
      NatsLane.connect(url),
      NatsLane.connect(url),
      NatsLane.connect(url),
    ]);
  });
  const bed = useTestBed({ workerOptions: { liveLane: workerLane }, bridge: { liveLane: bridgeLane } });
  beforeAll(async () => {
    other = await startBridge({
      client: bed.client,
      taskQueue: bed.worker.taskQueue,
      stores: bed.worker.stores,
      liveLane: otherLane,
    });
  });
  afterAll(async () => {
    await other?.close();
    await Promise.all([workerLane.close(), bridgeLane.close(), otherLane.close()]);
  });

  it('carries deltas from the worker to the bridge through NATS, none through the root history', async () => {
    const content = words(80, 'n');
    bed.server.script(text(content, { chunkSize: 4, delayMs: 5 }));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'talker' }), 'talk');
    const events = agioEvents(
      (await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN, timeoutMs: 30_000 })).events,
    );

    expect(streamedText(events, `${run.runId}:1`)).toBe(content);
    expect(events.filter((e) => e.type === 'STEP_DELTA').every((e) => typeof e.seq === 'number')).toBe(true);
    durableOffsetsAreWhole(events);
    const history = await run.workflow.fetchHistory();
    expect((history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
  });

  it('resumes a client on another bridge mid-step: the rest of the step, no gap, no duplicate', async () => {
    const content = words(80, 'm');
    bed.server.script(text(content, { chunkSize: 4, delayMs: 25 }));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'resumer' }), 'talk');
    const first = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 30_000,
      maxEvents: 12,
    });
    const lastId = first.events.at(-1)!.id;
    expect(lastId).toMatch(/^\d+\.\d+$/);
    const rest = await readSse(`${other.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 30_000,
      lastEventId: lastId,
    });

    const all = [...agioEvents(first.events), ...agioEvents(rest.events)];
    const stepId = `${run.runId}:1`;
    expect(all.find((e) => e.type === 'STEP_COMPLETED' && e.stepId === stepId)?.snapshot?.content).toBe(content);
    const streamed = streamedText(all, stepId);
    expect(content.startsWith(streamed)).toBe(true);
    expect(streamed.length).toBeGreaterThan(content.length / 2);
    durableOffsetsAreWhole(all);
  });
});

describe('when NATS goes away mid-stream', () => {
  let nats: NatsServer;
  const workerLane = new DeferredLane();
  const bridgeLane = new DeferredLane();
  beforeAll(async () => {
    nats = await startNatsServer();
    [workerLane.target, bridgeLane.target] = await Promise.all([
      NatsLane.connect(nats.url, () => undefined),
      NatsLane.connect(nats.url, () => undefined),
    ]);
  });
  const bed = useTestBed({ workerOptions: { liveLane: workerLane }, bridge: { liveLane: bridgeLane } });
  afterAll(async () => {
    await Promise.all([workerLane.close(), bridgeLane.close()]);
    await nats?.stop();
  });

  it('the run completes and its clients still get every committed event', async () => {
    const content = words(120, 'g');
    bed.server.script(text(content, { chunkSize: 4, delayMs: 25 }));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'orphan' }), 'talk');
    let stopping: Promise<void> | undefined;
    const { events: frames, closedBy } = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 60_000,
      onEvent: (frame) => {
        if (frame.event === 'STEP_DELTA' && !stopping) stopping = nats.stop();
      },
    });
    await stopping;
    const events = agioEvents(frames);

    expect(closedBy).toBe('server');
    expect((await run.result()).response).toBe(content);
    durableOffsetsAreWhole(events);
    expect(events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant')?.snapshot?.content).toBe(
      content,
    );
    expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
    expect(streamedText(events, `${run.runId}:1`).length).toBeLessThan(content.length);
  }, 90_000);

  it('streams deltas again once NATS is back (its in-memory stream made anew)', async () => {
    const port = Number(new URL(nats.url).port);
    nats = await startNatsServer({ port });
    const content = words(40, 'b');
    let streamed = '';
    for (let attempt = 0; attempt < 20 && !streamed; attempt++) {
      // The lanes reconnect on their own (every 500 ms); until then a run streams no deltas.
      await new Promise((r) => setTimeout(r, 500));
      bed.server.script(text(content, { chunkSize: 4, delayMs: 10 }));
      const run = await bed.bridge.agio.start(defineAgent({ name: 'returning' }), 'talk');
      const events = agioEvents(
        (await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN, timeoutMs: 30_000 })).events,
      );
      streamed = streamedText(events, `${run.runId}:1`);
    }
    expect(streamed).toBe(content);
  }, 90_000);
});
