// Resuming an SSE stream in the middle of a tree whose nested runs keep their own event logs: the id of an event read
// while a child and a grandchild log are open is a tree cursor (`17~5:3~5/2:1`), and a client that reconnects with it
// as Last-Event-ID — to the same bridge, or to a new bridge process after the first was killed — gets every remaining
// event of every log exactly once and in order within its log.
import { asTool, defineAgent, type AgentSpec, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, authData, keyOf } from '../helpers/approvals';
import { BridgeClient } from '../../cli/bridge-client';
import { parseCursor, isBehind } from '../../client/tree-cursor';
import { request, streamStats } from '../helpers/bridge';
import { startBridgeProcess, type BridgeProcess } from '../helpers/bridge-process';
import { openRawSse } from '../helpers/raw-sse';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';

const TOKEN = 'test-token';

/** An agent that delegates to `child` (offered as a tool under the child's name). */
function delegating(name: string, child: AgentSpec): AgentSpec {
  return defineAgent({
    name,
    instructions: `You are ${name}.`,
    tools: [asTool(child, { description: `Delegates to ${child.name}.` })],
  });
}

/** A tree root → b → c whose grandchild c asks twice for approval (it waits, with both nested logs open, each time). */
function askingTree(tag: string): Record<'a' | 'b' | 'c', AgentSpec> {
  const c = askingAgent(`resume-c-${tag}`);
  const b = delegating(`resume-b-${tag}`, c);
  return { a: delegating(`resume-a-${tag}`, b), b, c };
}

const isAsk = (frame: SseEvent, toolCallId: string) => {
  const event = JSON.parse(frame.data) as AgioEvent;
  return event.type === 'TOOL_AUTH_REQUIRED' && authData(event).toolCallId === toolCallId;
};

/** Every event of every log once: the (log, offset) keys of `events`, sorted. */
const keys = (events: Pick<AgioEvent, 'runId' | 'rootRunId' | 'offset' | 'ownLog'>[]) =>
  events.map((e) => `${e.ownLog ? e.runId : e.rootRunId}@${e.offset}`).sort();

describe('resuming a nested tree stream from a cursor id', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  /** Scripts and starts the asking tree; returns the root's id. */
  async function startTree(): Promise<string> {
    const tag = uniqueId('t');
    const { a, b, c } = askingTree(tag);
    bed.server.scriptFor(keyOf(a), toolCalls([toolCall(b.name, { task: 'ask C' }, { id: 'call_b' })]), text('A done'));
    bed.server.scriptFor(keyOf(b), toolCalls([toolCall(c.name, { task: 'record' }, { id: 'call_c' })]), text('B done'));
    bed.server.scriptFor(
      keyOf(c),
      toolCalls([toolCall('record', { label: 'one' }, { id: 'call_r1' })]),
      toolCalls([toolCall('record', { label: 'two' }, { id: 'call_r2' })]),
      text('C done'),
    );
    return (await bed.bridge.agio.start(a, 'go deep')).runId;
  }

  const approve = async (bridgeUrl: string, runId: string, toolCallId: string) =>
    expect(
      await request(`${bridgeUrl}/runs/${runId}/tool-calls/${toolCallId}/approve`, { token: TOKEN, body: {} }),
    ).toMatchObject({ status: 200 });

  /** Reads until the first approval is asked (the client then disconnects); its last id names two open logs. */
  async function readToFirstAsk(bridgeUrl: string, runId: string): Promise<SseEvent[]> {
    const first = await readSse(`${bridgeUrl}/runs/${runId}/events`, {
      token: TOKEN,
      until: (f) => isAsk(f, 'call_r1'),
    });
    expect(first.closedBy).toBe('client');
    const id = first.events.at(-1)!.id;
    // The root's offset, the child's (by its start pointer's offset) and the grandchild's (by the path of pointers).
    expect(id).toMatch(/^\d+~(\d+):-?\d+~\1\/\d+:-?\d+(\.\d+)?$/);
    return first.events;
  }

  /** Reconnects with `lastEventId`, approves the second ask when it comes, and reads to the end. */
  async function readRest(bridgeUrl: string, runId: string, lastEventId: string): Promise<SseEvent[]> {
    const rest = await readSse(`${bridgeUrl}/runs/${runId}/events`, {
      token: TOKEN,
      lastEventId,
      timeoutMs: 60_000,
      onEvent: (f) => void (isAsk(f, 'call_r2') && approve(bridgeUrl, runId, 'call_r2')),
    });
    expect(rest.closedBy).toBe('server');
    return rest.events;
  }

  /** The two reads together are the whole tree, each event once, each log in order; as a fresh read has it. */
  async function expectWholeTree(runId: string, first: SseEvent[], rest: SseEvent[]): Promise<void> {
    const events = agioEvents([...first, ...rest]).filter((e) => e.type !== 'STEP_DELTA');
    expectWholeStream(events, runId);
    expect(keys(events)).toEqual(keys(await readStream(bed.client, runId)));
    // Both nested runs' logs were read past the resume point: their events are in the second read.
    const resumed = agioEvents(rest).filter((e) => e.ownLog);
    expect(new Set(resumed.map((e) => e.depth))).toEqual(new Set([1, 2]));
  }

  it('resumes with Last-Event-ID = a cursor with open child logs, getting every remaining event exactly once', async () => {
    const runId = await startTree();
    const first = await readToFirstAsk(bed.bridge.url, runId);
    // Events happen while no client is connected: the grandchild goes on once approved.
    await approve(bed.bridge.url, runId, 'call_r1');
    const rest = await readRest(bed.bridge.url, runId, first.at(-1)!.id);
    await expectWholeTree(runId, first, rest);
    // `agio watch --after <id>` takes the same id: it gets the same rest, once the tree has ended too.
    const watched: AgioEvent[] = [];
    await new BridgeClient(bed.bridge.url, TOKEN).streamEvents(runId, (e) => watched.push(e), first.at(-1)!.id);
    expect(keys(watched.filter((e) => e.type !== 'STEP_DELTA'))).toEqual(
      keys(agioEvents(rest).filter((e) => e.type !== 'STEP_DELTA')),
    );

    // A malformed cursor is a 400; one that names an offset where the root's log has no pointer ends in an error frame.
    for (const bad of ['3~1', '3~1/2:0', '3~1:0~1:1', '3~1:-2', '3~1:0..5']) {
      const res = await request(`${bed.bridge.url}/runs/${runId}/events`, {
        token: TOKEN,
        headers: { 'last-event-id': bad },
      });
      expect({ bad, res }).toEqual({
        bad,
        res: { status: 400, body: { error: { code: 'invalid_offset', message: expect.any(String) } } },
      });
    }
    const made = await openRawSse(`${bed.bridge.url}/runs/${runId}/events?after=0~0:0`, TOKEN);
    expect(await made.ended).toMatch(/event: error\ndata: .*does not point at a nested run's log/);
  });

  it('serves a client resuming from a cursor off the reader of a client that follows from the start', async () => {
    const runId = await startTree();
    const whole = readSse(`${bed.bridge.url}/runs/${runId}/events`, { token: TOKEN, timeoutMs: 60_000 });
    const first = await readToFirstAsk(bed.bridge.url, runId);
    const before = (await streamStats(bed.bridge)).readersStarted;
    await approve(bed.bridge.url, runId, 'call_r1');
    const rest = await readRest(bed.bridge.url, runId, first.at(-1)!.id);
    // One reader for both (the resuming client's cursor is ahead of where it started): no second upstream reader.
    expect((await streamStats(bed.bridge)).readersStarted).toBe(before);
    await expectWholeTree(runId, first, rest);
    const all = agioEvents((await whole).events).filter((e) => e.type !== 'STEP_DELTA');
    expectWholeStream(all, runId);
    // Each resumed event's id is where that client stands: at least as far as the shared reader, and never behind
    // what it had when it came back (a cursor whose offsets are all at or past the resume id's).
    const resumedAt = parseCursor(first.at(-1)!.id.split('.')[0])!;
    for (const frame of rest) expect(isBehind(resumedAt, parseCursor(frame.id.split('.')[0])!)).toBe(true);
  });

  describe('across bridge processes', () => {
    const bridges: BridgeProcess[] = [];
    afterAll(() => bridges.forEach((b) => b.kill('SIGKILL')));

    it('resumes on a new bridge process from the cursor id the killed one gave', async () => {
      const taskQueue = bed.worker.taskQueue;
      bridges.push(await startBridgeProcess({ taskQueue }));
      const runId = await startTree();
      const first = await readToFirstAsk(bridges[0].url, runId);
      bridges[0].kill('SIGKILL');
      await bridges[0].exited;
      bridges.push(await startBridgeProcess({ taskQueue }));
      await approve(bridges[1].url, runId, 'call_r1');
      const rest = await readRest(bridges[1].url, runId, first.at(-1)!.id);
      await expectWholeTree(runId, first, rest);
    });
  });
});
