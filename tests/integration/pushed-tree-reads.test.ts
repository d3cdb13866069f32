// Pushed reads of a tree whose nested runs keep their own event logs: the bridge follows each child's log on the live
// lane under the child's own id from the moment the parent's log points at it, so five concurrent branches cost no
// more Queries per log than one root does, an idle tree waiting for five approvals costs next to none, and every event
// of every log still arrives once, in order, at once.
import { parallelAgent } from '../../common';
import { InProcessLane } from '../../live/in-process-lane';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, authData, keyOf } from '../helpers/approvals';
import { streamStats } from '../helpers/bridge';
import { expectWholeStream } from '../helpers/nested-runs';
import { followSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const BRANCHES = 5;
/**
 * How long the idle tree is watched. A polling reader reads each quiet log at least every 250 ms in its first 10 s
 * (about 48 Queries for six logs here), a pushed one not at all until its 30 s safety poll: the window needs to be long
 * enough to tell them apart, no longer.
 */
const IDLE_MS = 2000;

describe('pushed reads of a tree of nested logs', () => {
  const lane = new InProcessLane();
  const bed = useTestBed({ tools: testTools, workerOptions: { liveLane: lane }, bridge: { liveLane: lane } });

  it('follows five concurrent branches on the lane: idle nearly Query-free, decisions at once, every event once', async () => {
    const tag = uniqueId('fan');
    const branches = Array.from({ length: BRANCHES }, (_, i) => askingAgent(`fan-${i}-${tag}`));
    for (const [i, branch] of branches.entries())
      bed.server.scriptFor(
        keyOf(branch),
        toolCalls([toolCall('record', { label: `b${i}` }, { id: `call_${i}` })]),
        text(`branch ${i} done`),
      );
    const run = await bed.bridge.agio.start(parallelAgent({ name: `fan-${tag}`, subAgents: branches }), 'go');
    const { seen, read } = followSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN });
    const asks = () => seen.filter((s) => s.event.type === 'TOOL_AUTH_REQUIRED');
    await waitFor('every branch asking on the stream', () => asks().length === BRANCHES, 60_000);
    // Each branch's events come from its own log.
    expect(new Set(asks().map((s) => [s.event.runId, s.event.ownLog].join()))).toHaveProperty('size', BRANCHES);
    expect(asks().every((s) => s.event.ownLog === true && s.event.runId !== run.runId)).toBe(true);

    // Six logs open and idle: polled, each would be read several times in this window (IDLE_MS).
    const before = (await streamStats(bed.bridge)).queries;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = (await streamStats(bed.bridge)).queries - before;
    console.log(`${BRANCHES + 1} open logs idle for ${IDLE_MS} ms: ${idle} Queries`);
    expect(idle).toBeLessThanOrEqual(2);

    // Decided through the client (no wake-up of the bridge's reader): the pushes alone carry them.
    await Promise.all(asks().map((s) => run.approve(authData(s.event).toolCallId)));
    const decidedAt = Date.now();
    await waitFor('every grant on the stream', () =>
      seen.filter((s) => s.event.type === 'TOOL_AUTH_GRANTED').length === BRANCHES ? true : undefined,
    );
    const granted = seen.filter((s) => s.event.type === 'TOOL_AUTH_GRANTED');
    expect(Math.max(...granted.map((s) => s.at)) - decidedAt).toBeLessThan(1000);

    await read;
    const events = seen.map((s) => s.event);
    expectWholeStream(events, run.runId);
    expect(events.filter((e) => e.type === 'RUN_COMPLETED' && e.depth === 1)).toHaveLength(BRANCHES);
    // A catch-up read when each log opens (and perhaps one more): the root alone takes up to 3 (pushed-reads.test.ts).
    const total = (await streamStats(bed.bridge)).queries;
    console.log(`${BRANCHES + 1} logs read with ${total} Queries`);
    expect(total).toBeLessThanOrEqual(3 * (BRANCHES + 1));
  }, 120_000);
});
