// wireStepSink (a model call's deltas as STEP_DELTA / STEP_RETRY events), its pacing and merging, over a fake sender
// and jest's fake clock: every time is exact.
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import type { EventBase } from '../../common';
import { WirePublisher } from '../../activities/publish';
import { deltaPacing, mergeDeltas, wireStepSink } from '../../activities/model/wire-step-sink';
import { INTERVAL, HOLD, T0, fakeSender, tick, useFakeClock } from '../helpers/fake-sender';

useFakeClock();

describe('mergeDeltas', () => {
  it.each([
    ['text + text', { content: 'a' }, { content: 'b' }, { content: 'ab' }],
    ['reasoning + reasoning', { reasoningContent: 'a' }, { reasoningContent: 'b' }, { reasoningContent: 'ab' }],
    [
      'arguments of the same call',
      { toolCalls: [{ index: 2, id: 'x', name: 'n', arguments: '{' }] },
      { toolCalls: [{ index: 2, arguments: '}' }] },
      { toolCalls: [{ index: 2, id: 'x', name: 'n', arguments: '{}' }] },
    ],
    ['text + reasoning', { content: 'a' }, { reasoningContent: 'b' }, undefined],
    ['a delta carrying both', { content: 'a', reasoningContent: 'b' }, { content: 'c' }, undefined],
    ['text + tool call', { content: 'a' }, { toolCalls: [{ index: 0, arguments: '{}' }] }, undefined],
    [
      'another call index',
      { toolCalls: [{ index: 0, arguments: '{}' }] },
      { toolCalls: [{ index: 1, arguments: '{' }] },
      undefined,
    ],
    [
      'the same index with a new id',
      { toolCalls: [{ index: 0, arguments: '{}' }] },
      { toolCalls: [{ index: 0, id: 'y', arguments: '' }] },
      undefined,
    ],
    [
      'two calls in one chunk',
      { toolCalls: [{ index: 0, arguments: '' }] },
      {
        toolCalls: [
          { index: 0, arguments: '' },
          { index: 1, arguments: '' },
        ],
      },
      undefined,
    ],
  ])('%s', (_, a, b, merged) => {
    expect(mergeDeltas(a, b)).toEqual(merged);
  });
});

describe('deltaPacing', () => {
  it('batches every 100 ms up to an eighth of the budget, slows to 2 s toward it, and stops at it', () => {
    const budget = { maxHistoryEvents: 8000 };
    expect(deltaPacing(0, budget)).toEqual({ intervalMs: 100, stop: false });
    expect(deltaPacing(1000, budget)).toEqual({ intervalMs: 100, stop: false });
    expect(deltaPacing(4500, budget)).toEqual({ intervalMs: 1050, stop: false });
    expect(deltaPacing(7999, budget).stop).toBe(false);
    expect(deltaPacing(8000, budget)).toEqual({ intervalMs: 2000, stop: true });
  });
});

describe('wireStepSink', () => {
  const base: EventBase = {
    runId: 'child',
    rootRunId: 'root',
    agent: 'writer',
    depth: 1,
    parentRunId: 'root',
    toolCallId: 'tc1',
  };

  it("slows its batches as the root's history fills and stops its deltas (not the call) once the budget is spent", async () => {
    const s = fakeSender();
    const publisher = new WirePublisher(s.send, 'p', INTERVAL);
    let history = 10;
    const budget = { maxHistoryEvents: 800, checkEveryMs: 1000 };
    const sink = wireStepSink(base, 'child:1', publisher, HOLD, budget, async () => history);
    await sink.begin({ attempt: 1 });
    sink.delta({ content: 'a' });
    await jest.advanceTimersByTimeAsync(HOLD);
    expect(publisher.flushIntervalMs).toBe(100);
    history = 450; // halfway from an eighth to the budget
    await jest.advanceTimersByTimeAsync(1000);
    expect(publisher.flushIntervalMs).toBe(1050);
    sink.delta({ content: 'b' });
    await jest.advanceTimersByTimeAsync(1050);
    const sentBefore = s.attempts.length;
    history = 800;
    await jest.advanceTimersByTimeAsync(1000);
    for (const piece of ['c', 'd', 'e']) sink.delta({ content: piece });
    await jest.advanceTimersByTimeAsync(5000);
    await sink.end();
    expect(s.attempts.length).toBe(sentBefore);
    expect(s.attempts.flatMap((a) => a.batch.events.map((e) => e.delta?.content))).toEqual(['a', 'b']);
  });

  it('on attempt 1 sends the first STEP_DELTA after the hold and batches the later ones, merged into one event', async () => {
    const s = fakeSender();
    const sink = wireStepSink(base, 'child:1', new WirePublisher(s.send, 'p', INTERVAL), HOLD);
    await sink.begin({ attempt: 1 });
    await tick();
    expect(s.attempts).toHaveLength(0);
    sink.delta({ content: 'He' });
    await jest.advanceTimersByTimeAsync(HOLD - 1);
    expect(s.attempts).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(s.attempts).toHaveLength(1);
    expect(s.attempts[0].startedAt).toBe(T0 + HOLD);
    for (const piece of ['l', 'l', 'o']) {
      sink.delta({ content: piece });
      await jest.advanceTimersByTimeAsync(2);
    }
    expect(s.attempts).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(s.attempts).toHaveLength(2);
    expect(s.attempts[1].batch.events.map((e) => e.delta?.content)).toEqual(['llo']);
    expect(s.attempts[1].batch.events[0].timestamp).toBe(T0 + HOLD); // when its first piece arrived, not its last
    const all = s.attempts.flatMap((a) => a.batch.events);
    expect(all.every((e) => e.type === 'STEP_DELTA' && e.stepId === 'child:1' && e.attempt === 1)).toBe(true);
    expect(all[0]).toMatchObject({ ...base, type: 'STEP_DELTA', delta: { content: 'He' }, timestamp: T0 });
    await sink.end();
    expect(s.attempts).toHaveLength(2);
  });

  it('sends nothing for a stream that ends before its first delta is due: the committed step carries it all', async () => {
    const s = fakeSender();
    let reads = 0;
    const sink = wireStepSink(
      base,
      'child:1',
      new WirePublisher(s.send, 'p', INTERVAL),
      HOLD,
      { maxHistoryEvents: 800, checkEveryMs: 1000 },
      async () => ++reads,
    );
    await sink.begin({ attempt: 1 });
    sink.delta({ content: 'a whole ' });
    await jest.advanceTimersByTimeAsync(HOLD - 1);
    sink.delta({ content: 'answer' });
    await sink.end();
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(s.attempts).toHaveLength(0);
    expect(reads).toBe(0); // nor did it read the root's history
  });

  it('flushes buffered deltas on end() once the step has started sending', async () => {
    const s = fakeSender();
    const sink = wireStepSink(base, 'child:1', new WirePublisher(s.send, 'p', INTERVAL), HOLD);
    await sink.begin({ attempt: 1 });
    sink.delta({ content: 'a' });
    await jest.advanceTimersByTimeAsync(HOLD);
    sink.delta({ reasoningContent: 'b' });
    sink.delta({ toolCalls: [{ index: 0, arguments: '{}' }] });
    await sink.end();
    expect(s.delivered().flatMap((a) => a.batch.events.map((e) => e.delta))).toEqual([
      { content: 'a' },
      { reasoningContent: 'b' },
      { toolCalls: [{ index: 0, arguments: '{}' }] },
    ]);
  });

  it('merges only adjacent deltas of the same kind; a new tool call starts a new event', async () => {
    const s = fakeSender();
    const sink = wireStepSink(base, 'child:1', new WirePublisher(s.send, 'p', INTERVAL), HOLD);
    await sink.begin({ attempt: 1 });
    sink.delta({ reasoningContent: 'think' }); // the first delta goes alone, after the hold
    await jest.advanceTimersByTimeAsync(HOLD);
    for (const d of [
      { reasoningContent: 'ing' },
      { reasoningContent: '…' },
      { content: 'I will ' },
      { content: 'look.' },
      { toolCalls: [{ index: 0, id: 'c1', name: 'grep', arguments: '' }] },
      { toolCalls: [{ index: 0, arguments: '{"pat' }] },
      { toolCalls: [{ index: 0, arguments: 'tern":"x"}' }] },
      { toolCalls: [{ index: 1, id: 'c2', name: 'ls', arguments: '{}' }] },
    ])
      sink.delta(d);
    await sink.end();
    expect(s.delivered().map((a) => a.batch.events.map((e) => e.delta))).toEqual([
      [{ reasoningContent: 'think' }],
      [
        { reasoningContent: 'ing…' },
        { content: 'I will look.' },
        { toolCalls: [{ index: 0, id: 'c1', name: 'grep', arguments: '{"pattern":"x"}' }] },
        { toolCalls: [{ index: 1, id: 'c2', name: 'ls', arguments: '{}' }] },
      ],
    ]);
  });

  it('on attempt 2 first sends a STEP_RETRY (at once) naming the step and attempt, then the deltas', async () => {
    const s = fakeSender();
    const sink = wireStepSink(base, 'child:1', new WirePublisher(s.send, 'p', INTERVAL), HOLD);
    await sink.begin({ attempt: 2 });
    await tick();
    expect(s.attempts).toHaveLength(1);
    expect(s.attempts[0].startedAt).toBe(T0);
    expect(s.attempts[0].batch.events).toHaveLength(1);
    expect(s.attempts[0].batch.events[0]).toMatchObject({ ...base, type: 'STEP_RETRY', stepId: 'child:1', attempt: 2 });
    sink.delta({ content: 'again' });
    await jest.advanceTimersByTimeAsync(HOLD);
    expect(s.attempts).toHaveLength(2);
    expect(s.attempts[1].batch.events).toEqual([
      expect.objectContaining({ type: 'STEP_DELTA', stepId: 'child:1', attempt: 2, delta: { content: 'again' } }),
    ]);
    await sink.end();
  });

  it('does not fail the model call when deltas cannot be delivered: end() logs a warning and resolves', async () => {
    const logs: LogEntry[] = [];
    const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('WARN', (entry) => logs.push(entry)) });
    const s = fakeSender(() => ({ fail: new Error('root run is gone') }));
    const result = env.run(async () => {
      const sink = wireStepSink(base, 'child:1', new WirePublisher(s.send, 'p', INTERVAL), HOLD);
      await sink.begin({ attempt: 1 });
      sink.delta({ content: 'x' });
      await new Promise((r) => setTimeout(r, HOLD));
      await sink.end();
      return 'ok';
    });
    await jest.advanceTimersByTimeAsync(60_000);
    expect(await result).toBe('ok');
    expect(
      logs.some(
        (l) =>
          l.level === 'WARN' && l.message.includes('could not publish step deltas') && l.meta?.stepId === 'child:1',
      ),
    ).toBe(true);
  });
});
