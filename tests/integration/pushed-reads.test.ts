// Reads are pushed (docs/ARCHITECTURE.md, "The Wire"): a root hands the events it appends to its Wire to the live
// lane, and a bridge follows them there instead of polling the events Query, which it reads only to catch up. An
// open stream on a run waiting for a person costs next to no Queries, and its events still arrive at once; over NATS
// the same holds between processes.
import { defineAgent, type AgioEvent } from '../../common';
import { InProcessLane } from '../../live/in-process-lane';
import { NatsLane } from '../../live/nats-lane';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf } from '../helpers/approvals';
import { streamStats, type TestBridge } from '../helpers/bridge';
import { DeferredLane } from '../helpers/deferred-lane';
import { followSse, type FollowedStream } from '../helpers/sse-client';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
/**
 * How long an idle stream is watched. A polling reader reads a quiet run at least every 250 ms in its first 10 s (about
 * 8 Queries here; the old reader read once a second), a pushed one not at all until its 30 s safety poll: the window
 * needs to be long enough to tell them apart, no longer.
 */
const IDLE_MS = 2000;

/** A stream of the bridge read in the background (see {@link followSse}). */
const follow = (bridge: TestBridge, runId: string): FollowedStream =>
  followSse(`${bridge.url}/runs/${runId}/events`, { token: TOKEN });

/** Every durable offset from 0 to the last, each once, in order. */
const expectWholeInOrder = (events: AgioEvent[]) =>
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));

describe('pushed reads on the in-process lane', () => {
  const lane = new InProcessLane();
  const bed = useTestBed({ tools: testTools, workerOptions: { liveLane: lane }, bridge: { liveLane: lane } });

  it('keeps an idle stream on a run waiting for approval nearly Query-free, and still delivers the decision at once', async () => {
    const agent = askingAgent('idle-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'approved' }, { id: 'call_idle' })]),
      text('recorded'),
    );
    const run = await bed.bridge.agio.start(agent, 'record something');
    const { seen, read } = follow(bed.bridge, run.runId);
    await waitFor('the approval request on the stream', () => seen.some((s) => s.event.type === 'TOOL_AUTH_REQUIRED'));

    // The window is the measurement (IDLE_MS): a reader that polled would have read the run several times in it.
    const before = (await streamStats(bed.bridge)).queries;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleQueries = (await streamStats(bed.bridge)).queries - before;
    expect(idleQueries).toBeLessThanOrEqual(2);

    // Decided through the client, not the bridge, so no wake-up of the reader helps: the push alone carries it.
    const decidedAt = Date.now();
    await run.approve('call_idle', { by: 'alice' });
    const granted = await waitFor('TOOL_AUTH_GRANTED on the stream', () =>
      seen.find((s) => s.event.type === 'TOOL_AUTH_GRANTED'),
    );
    expect(granted.at - decidedAt).toBeLessThan(1000);

    await read;
    expectWholeInOrder(seen.map((s) => s.event));
    expect(seen.at(-1)!.event.type).toBe('RUN_COMPLETED');
  }, 90_000);
});

describe('pushed reads on NATS', () => {
  const workerLane = new DeferredLane();
  const bridgeLane = new DeferredLane();
  beforeAll(async () => {
    const url = testEnv('natsUrl');
    [workerLane.target, bridgeLane.target] = await Promise.all([NatsLane.connect(url), NatsLane.connect(url)]);
  });
  const bed = useTestBed({
    tools: testTools,
    workerOptions: { liveLane: workerLane },
    bridge: { liveLane: bridgeLane },
  });
  afterAll(() => Promise.all([workerLane.close(), bridgeLane.close()]));

  it('pushes a busy run’s durable events to a bridge of its own: every event once, in order, few Queries', async () => {
    const agent = defineAgent({ name: 'pushed-worker', tools: ['record'] });
    const turn = (i: number) =>
      toolCalls([toolCall('record', { label: `r${i}` }, { id: `call_${i}` })], { delayMs: 50, chunkSize: 5 });
    bed.server.script(turn(1), turn(2), turn(3), turn(4), text('all recorded', { delayMs: 50 }));
    const run = await bed.bridge.agio.start(agent, 'record four times');
    const { seen, read } = follow(bed.bridge, run.runId);
    await read;

    const events = seen.map((s) => s.event);
    expectWholeInOrder(events);
    expect(events.filter((e) => e.type === 'STEP_COMPLETED').length).toBeGreaterThanOrEqual(10);
    expect(events.at(-1)!.type).toBe('RUN_COMPLETED');
    // A catch-up read at the start (and perhaps one more): the old reader read back to back while events flowed.
    expect((await streamStats(bed.bridge)).queries).toBeLessThanOrEqual(3);
  }, 60_000);
});
