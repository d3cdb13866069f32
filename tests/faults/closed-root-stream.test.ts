// A root terminated (or timed out) in Temporal never writes its terminal event, so a reader never saw the end of its
// log and read the closed run again at every poll, each read a full replay by a worker, for as long as it stayed
// connected. Readers now end such a stream with a synthetic terminal event (RUN_FAILED, error type Terminated or
// TimedOut, data.synthetic) after the log's last event, and stop reading.
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import type { AgioEvent } from '../../common';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { streamStats } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';

describe('the stream of a root terminated in Temporal', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  const read = async (runId: string) => {
    const { events, closedBy } = await readSse(`${bed.bridge.url}/runs/${runId}/events`, {
      token: TOKEN,
      timeoutMs: 20_000,
    });
    expect(closedBy).toBe('server');
    return agioEvents(events);
  };

  it('ends with a synthetic RUN_FAILED (Terminated) after the last event, and nothing reads the closed run afterwards', async () => {
    const agent = askingAgent('terminated-asker');
    bed.server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_rec' })]));
    const run = await bed.bridge.agio.start(agent, 'record something');
    const following = read(run.runId);
    await waitForAsk(bed.client, run.runId, 'call_rec');

    await bed.client.workflow.getHandle(run.runId).terminate('an operator ended it');
    const events = await following;
    const last = events.at(-1)!;
    expect(last).toMatchObject({
      type: 'RUN_FAILED',
      runId: run.runId,
      rootRunId: run.runId,
      depth: 0,
      agent: 'terminated-asker',
      offset: events.at(-2)!.offset + 1,
      data: { error: { type: 'Terminated' }, synthetic: true, status: 'TERMINATED' },
    });
    expect(events.filter((e) => e.type === 'RUN_FAILED')).toHaveLength(1);
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));

    // The reader has stopped: no page is read any more (before, one a second, each a replay of the closed run).
    const ended = await streamStats(bed.bridge);
    expect(ended.activeReaders).toBe(0);
    expect(ended.closedRuns.replayedPages).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await streamStats(bed.bridge)).toMatchObject({ queries: ended.queries, closedRuns: ended.closedRuns });

    // A reader joining later gets the same events and the same synthetic end, for one read of the closed run.
    const again = await read(run.runId);
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
