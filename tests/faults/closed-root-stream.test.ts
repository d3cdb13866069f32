// A root terminated (or timed out) in Temporal never writes its terminal event, so a reader never saw the end of its
// log and read the closed run again at every poll, each read a full replay by a worker, for as long as it stayed
// connected. Readers now end such a stream with a synthetic terminal event (RUN_FAILED, error type Terminated or
// TimedOut, data.synthetic) after the log's last event, and stop reading.
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import type { AgioEvent } from '../../common';
import { InProcessLane } from '../../live/in-process-lane';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf } from '../helpers/approvals';
import { streamStats, type TestBridge } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed, type TestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';

/**
 * The whole stream of a root run over SSE, which the server must end; `onAsk` fires when the approval request comes.
 */
async function read(bridge: TestBridge, runId: string, onAsk?: () => void): Promise<AgioEvent[]> {
  const { events, closedBy } = await readSse(`${bridge.url}/runs/${runId}/events`, {
    token: TOKEN,
    timeoutMs: 20_000,
    onEvent: (frame) => (frame.event === 'TOOL_AUTH_REQUIRED' ? onAsk?.() : undefined),
  });
  expect(closedBy).toBe('server');
  return agioEvents(events);
}

/**
 * Starts a run that waits for an approval, terminates it once the bridge's stream has the request; the stream, and how
 * long it took to end.
 */
async function terminateWhileFollowing(bed: TestBed, name: string) {
  const agent = askingAgent(name);
  bed.server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_rec' })]));
  const run = await bed.bridge.agio.start(agent, 'record something');
  let asked!: () => void;
  const askedOnStream = new Promise<void>((resolve) => (asked = resolve));
  const following = read(bed.bridge, run.runId, () => asked());
  await askedOnStream;
  const terminated = Date.now();
  await bed.client.workflow.getHandle(run.runId).terminate('an operator ended it');
  const events = await following;
  return { run, events, endedAfterMs: Date.now() - terminated };
}

describe('the stream of a root terminated in Temporal', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  it('ends with a synthetic RUN_FAILED (Terminated) after the last event, and nothing reads the closed run afterwards', async () => {
    const { run, events } = await terminateWhileFollowing(bed, 'terminated-asker');
    const last = events.at(-1)!;
    expect(last).toMatchObject({
      type: 'RUN_FAILED',
      runId: run.runId,
      rootRunId: run.runId,
      depth: 0,
      agent: 'terminated-asker',
      offset: events.at(-2)!.offset + 1,
      data: { error: { type: 'Terminated' }, synthetic: true, status: 'terminated' },
    });
    expect(events.filter((e) => e.type === 'RUN_FAILED')).toHaveLength(1);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));

    // The reader has stopped: no page is read any more (before, one a second, each a replay of the closed run).
    const ended = await streamStats(bed.bridge);
    expect(ended.activeReaders).toBe(0);
    expect(ended.closedRuns.replayedPages).toBeLessThanOrEqual(1);
    // Nothing is left to read it, so nothing to wait for but time: a reader still polling the closed run would read
    // it at least once a second (its longest pause), so a little over a second would show it.
    await new Promise((r) => setTimeout(r, 1200));
    expect(await streamStats(bed.bridge)).toMatchObject({ queries: ended.queries, closedRuns: ended.closedRuns });

    // A reader joining later gets the same events and the same synthetic end, for one read of the closed run.
    const again = await read(bed.bridge, run.runId);
    expect(again).toEqual(events);
    const joined = await streamStats(bed.bridge);
    expect(joined.closedRuns.replayedPages).toBe(ended.closedRuns.replayedPages + 1);
    // Resuming after the synthetic event ends at once.
    const resumed = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      lastEventId: String(last.offset),
      timeoutMs: 20_000,
    });
    expect(resumed).toEqual({ events: [], closedBy: 'server' });

    // RunHandle.stream() ends the same way.
    const streamed: AgioEvent[] = [];
    for await (const event of bed.agio.getHandle(run.runId).stream()) streamed.push(event);
    expect(streamed.at(-1)).toMatchObject({ type: 'RUN_FAILED', offset: last.offset, data: { synthetic: true } });
  });
});

describe('the stream of a root terminated in Temporal, read from pushed events', () => {
  const lane = new InProcessLane();
  const bed = useTestBed({ tools: testTools, workerOptions: { liveLane: lane }, bridge: { liveLane: lane } });

  it('ends within seconds, not at the next safety poll: the reader learns of the close from a long poll', async () => {
    const { events, endedAfterMs } = await terminateWhileFollowing(bed, 'pushed-terminated-asker');
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      data: { error: { type: 'Terminated' }, synthetic: true },
    });
    expect(endedAfterMs).toBeLessThan(10_000);
    expect(await streamStats(bed.bridge)).toMatchObject({ activeReaders: 0, closedRuns: { replayedPages: 1 } });
  });
});
