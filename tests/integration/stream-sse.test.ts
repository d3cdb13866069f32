// A run's event stream read through the real HTTP bridge by a real SSE client: offsets as SSE ids with no gap,
// batched deltas that add up to the committed step, resuming after a disconnect (also on another bridge
// process), ?after=, and one upstream reader shared by many clients.
import type { WorkflowHandle } from '@temporalio/client';
import { defineAgent, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { request, startBridge, streamStats, type TestBridge } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { createMemoryStores } from '../../stores';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const streamer = defineAgent({ name: 'streamer' });

/** Offsets 0..n-1 in order: no gap, no duplicate. */
function expectContiguous(events: AgioEvent[]): void {
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
}

/** Event types with consecutive repeats folded: the shape of a stream. */
function shape(events: AgioEvent[]): string[] {
  return events.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]);
}

/** Number of `publish` signals a run received (batches of activity events). */
async function publishSignals(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'publish')
    .length;
}

describe('run events over SSE', () => {
  const bed = useTestBed({ agents: [streamer], bridge: true });
  /** A second bridge on the same worker: another bridge process a client may reconnect to. */
  let otherBridge: TestBridge;
  beforeAll(async () => {
    otherBridge = await startBridge({ client: bed.client, taskQueue: bed.worker.taskQueue, agents: [streamer] });
  });
  afterAll(() => otherBridge?.close());

  const startRun = async (): Promise<string> => {
    const { status, body } = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'streamer', input: 'tell me a story' },
    });
    expect(status).toBe(201);
    return body.runId as string;
  };
  const eventsUrl = (b: TestBridge, runId: string) => `${b.url}/runs/${runId}/events`;

  it('streams RUN_STARTED, batched STEP_DELTAs adding up to STEP_COMPLETED, then RUN_COMPLETED with ids 0..n and closes', async () => {
    const story = Array.from({ length: 150 }, (_, i) => `word${i} `).join('');
    bed.server.script(text(story, { chunkSize: 4, delayMs: 3 }));
    const written: number[] = [];
    bed.server.onChunk = ({ writtenAt }) => written.push(writtenAt);
    const runId = await startRun();

    const { events: frames, closedBy } = await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN });

    const events = agioEvents(frames);
    expect(closedBy).toBe('server');
    expectContiguous(events);
    expect(shape(events)).toEqual(['RUN_STARTED', 'STEP_COMPLETED', 'STEP_DELTA', 'STEP_COMPLETED', 'RUN_COMPLETED']);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId, data: { response: story } });
    const completed = events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant');
    expect(completed).toHaveLength(1);
    const stepId = completed[0].stepId;
    const deltas = events.filter((e) => e.type === 'STEP_DELTA');
    expect(deltas.every((e) => e.stepId === stepId && e.attempt === 1)).toBe(true);
    expect(deltas.map((e) => e.delta?.content ?? '').join('')).toBe(completed[0].snapshot?.content);
    expect(completed[0].snapshot?.content).toBe(story);
    // Hundreds of chunks, a handful of signals: deltas travel in ≤ 100 ms batches, never one signal per token,
    // and the chunks of a batch arrive merged into one STEP_DELTA.
    const chunks = Math.ceil(story.length / 4);
    const streamedMs = written.at(-1)! - written[0];
    const signals = await publishSignals(bed.client.workflow.getHandle(runId));
    expect(signals).toBeGreaterThan(0);
    expect(signals).toBeLessThanOrEqual(Math.ceil(streamedMs / 100) + 3);
    expect(signals * 5).toBeLessThan(chunks);
    expect(deltas).toHaveLength(signals);
  });

  it('resumes with Last-Event-ID after a disconnect, on the same bridge and on another one, without gap or duplicate', async () => {
    // ~3 s of streaming: every reconnect below happens while the model is still answering.
    bed.server.script(text('x'.repeat(480), { chunkSize: 4, delayMs: 25 }));
    const runId = await startRun();

    const first = await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN, maxEvents: 5 });
    // The client left mid-run; the bridge lets go of it.
    await waitFor(
      'the bridge to drop the disconnected client',
      async () => (await streamStats(bed.bridge)).subscribers === 0,
    );
    const second = await readSse(eventsUrl(bed.bridge, runId), {
      token: TOKEN,
      lastEventId: first.events.at(-1)!.id,
      maxEvents: 10,
    });
    const rest = await readSse(eventsUrl(otherBridge, runId), { token: TOKEN, lastEventId: second.events.at(-1)!.id });

    expect([first.closedBy, second.closedBy, rest.closedBy]).toEqual(['client', 'client', 'server']);
    const legs = [first, second, rest].map((leg) => agioEvents(leg.events));
    // Every leg ended while the model was still streaming, so each reconnect happened mid-run.
    expect(legs[2].filter((e) => e.type === 'STEP_DELTA').length).toBeGreaterThan(0);
    const joined = legs.flat();
    expectContiguous(joined);
    expect(joined.at(-1)?.type).toBe('RUN_COMPLETED');
    // Exactly what a client reading the finished run from the start sees.
    const whole = await readSse(eventsUrl(otherBridge, runId), { token: TOKEN });
    expect(agioEvents(whole.events)).toEqual(joined);
  });

  it('resumes exactly after ?after=N and answers a malformed Last-Event-ID or after with a 400 JSON error', async () => {
    bed.server.script(text('a short answer', { chunkSize: 2 }));
    const runId = await startRun();
    const all = agioEvents((await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN })).events);

    const after3 = agioEvents((await readSse(`${eventsUrl(bed.bridge, runId)}?after=3`, { token: TOKEN })).events);
    expect(after3).toEqual(all.slice(4));
    const fromStart = agioEvents((await readSse(`${eventsUrl(bed.bridge, runId)}?after=-1`, { token: TOKEN })).events);
    expect(fromStart).toEqual(all);
    const pastEnd = await readSse(`${eventsUrl(bed.bridge, runId)}?after=${all.length - 1}`, { token: TOKEN });
    expect(pastEnd).toEqual({ events: [], closedBy: 'server' });

    for (const bad of [
      { headers: { 'last-event-id': 'abc' } },
      { headers: { 'last-event-id': '-2' } },
      { query: '?after=1.5.5' },
    ]) {
      const res = await request(`${eventsUrl(bed.bridge, runId)}${bad.query ?? ''}`, {
        token: TOKEN,
        headers: bad.headers,
      });
      expect(res).toEqual({ status: 400, body: { error: { code: 'invalid_offset', message: expect.any(String) } } });
    }
  });

  it('serves 50 SSE clients of one run from one upstream reader, each receiving the identical full sequence', async () => {
    const { answer, release } = heldAnswer(text('one answer for fifty readers', { chunkSize: 3, delayMs: 5 }));
    bed.server.script(answer);
    const runId = await startRun();
    const before = await streamStats(bed.bridge);

    const reads = Array.from({ length: 50 }, () => readSse(eventsUrl(bed.bridge, runId), { token: TOKEN }));
    await waitFor('50 subscribers', async () => (await streamStats(bed.bridge)).subscribers === 50);
    const during = await streamStats(bed.bridge);
    release();
    const results = await Promise.all(reads);

    expect(during.readersStarted - before.readersStarted).toBe(1);
    expect(during.activeReaders).toBe(1);
    const reference = agioEvents(results[0].events);
    expectContiguous(reference);
    expect(reference.at(-1)?.type).toBe('RUN_COMPLETED');
    for (const result of results) {
      expect(result.closedBy).toBe('server');
      expect(result.events).toEqual(results[0].events);
    }
    const after = await streamStats(bed.bridge);
    expect(after.readersStarted - before.readersStarted).toBe(1);
    expect(after.subscribers).toBe(0);
    expect(after.queries).toBeGreaterThan(before.queries);
  });

  it('ends the stream once the run has closed, so a client that asks for the run right after finds it completed', async () => {
    for (let i = 0; i < 3; i++) {
      bed.server.script(text(`answer ${i}`));
      const runId = await startRun();
      const { events } = await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN });
      expect(agioEvents(events).at(-1)?.type).toBe('RUN_COMPLETED');
      const { status, body } = await request(`${bed.bridge.url}/runs/${runId}`, { token: TOKEN });
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'completed', output: { response: `answer ${i}` } });
    }
  });

  it('serves a finished run from the event log its root wrote, not by replaying it; a bridge without the stores replays it', async () => {
    bed.server.script(text('kept in the log', { chunkSize: 3 }));
    const runId = await startRun();
    const live = agioEvents((await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN })).events);
    expectContiguous(live);
    expect(await bed.worker.stores.events.read('default', runId, -1, 1000)).toEqual(live);

    const before = await streamStats(bed.bridge);
    const again = agioEvents((await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN })).events);
    const resumed = agioEvents(
      (await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN, lastEventId: '2' })).events,
    );
    const after = await streamStats(bed.bridge);
    expect(again).toEqual(live);
    expect(resumed).toEqual(live.slice(3));
    expect(after.closedRuns.storedPages - before.closedRuns.storedPages).toBeGreaterThanOrEqual(1);
    expect(after.closedRuns.replayedPages).toBe(before.closedRuns.replayedPages);

    // The other bridge has no stores: the same events, through a Query a worker answers by replaying the run.
    const otherBefore = await streamStats(otherBridge);
    expect(agioEvents((await readSse(eventsUrl(otherBridge, runId), { token: TOKEN })).events)).toEqual(live);
    expect((await streamStats(otherBridge)).closedRuns.replayedPages).toBeGreaterThan(
      otherBefore.closedRuns.replayedPages,
    );
  });

  it('falls back to the Query when the event log stops short of a finished run’s end or has a gap', async () => {
    bed.server.script(text('a log with holes'));
    const runId = await startRun();
    const live = agioEvents((await readSse(eventsUrl(bed.bridge, runId), { token: TOKEN })).events);
    expect(live.length).toBeGreaterThanOrEqual(4);
    for (const partial of [live.slice(0, 2), [...live.slice(0, 2), ...live.slice(3)]]) {
      // A bridge whose stores hold a log that a failed write left short, or with an event missing.
      const stores = createMemoryStores();
      await stores.events.append('default', runId, partial);
      const bridge = await startBridge({
        client: bed.client,
        taskQueue: bed.worker.taskQueue,
        agents: [streamer],
        stores,
      });
      try {
        expect(agioEvents((await readSse(eventsUrl(bridge, runId), { token: TOKEN })).events)).toEqual(live);
        expect((await streamStats(bridge)).closedRuns).toMatchObject({ storedPages: 0, replayedPages: 1 });
      } finally {
        await bridge.close();
      }
    }
  });
});
