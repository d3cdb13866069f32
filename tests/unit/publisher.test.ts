// WirePublisher (batched, ordered, deduplicatable publishing from activities), over a fake sender and jest's fake
// clock: every time is exact.
import { WorkflowNotFoundError } from '@temporalio/common';
import { WirePublisher } from '../../activities/publish';
import { INTERVAL, T0, fakeSender, ev, tick, useFakeClock } from '../helpers/fake-sender';

useFakeClock();

describe('WirePublisher', () => {
  it('flushWithin brings a flush forward but never pushes one back; discard drops what is unsent', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'pub-w', INTERVAL);
    pub.publish(ev());
    pub.flushWithin(5);
    pub.flushWithin(20);
    await jest.advanceTimersByTimeAsync(5);
    expect(s.attempts.map((a) => a.startedAt)).toEqual([T0 + 5]);
    expect(pub.started).toBe(true);
    pub.publish(ev());
    pub.discard();
    await jest.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(s.attempts).toHaveLength(1);
  });

  it('sends many events published within one interval as ONE batch when the interval ends', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'pub-1', INTERVAL);
    for (let i = 0; i < 50; i++) {
      pub.publish(ev());
      await jest.advanceTimersByTimeAsync(0.5);
    }
    await jest.advanceTimersByTimeAsync(INTERVAL - 25 - 1);
    expect(s.attempts).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(s.attempts).toHaveLength(1);
    expect(s.attempts[0].startedAt).toBe(T0 + INTERVAL);
    expect(s.attempts[0].batch).toMatchObject({ publisherId: 'pub-1', sequence: 0 });
    expect(s.attempts[0].batch.events).toHaveLength(50);
  });

  it('keeps the events of a batch in publish order', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    const events = [ev(), ev(), ev()];
    for (const e of events) pub.publish(e);
    await pub.flush();
    expect(s.attempts[0].batch.events).toEqual(events);
  });

  it('sends an immediate event at once, together with what was buffered before it', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    const buffered = ev();
    const urgent = ev({ type: 'STEP_RETRY' });
    pub.publish(buffered);
    pub.publish(urgent, true);
    await tick();
    expect(s.attempts).toHaveLength(1);
    expect(s.attempts[0].startedAt).toBe(T0);
    expect(s.attempts[0].batch.events).toEqual([buffered, urgent]);
    // The pending interval flush was cancelled: nothing more goes out.
    await jest.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(s.attempts).toHaveLength(1);
  });

  it('numbers batches 0, 1, 2… one per batch, under its publisher id', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'act:run/1/1', INTERVAL);
    pub.publish(ev());
    pub.publish(ev());
    await jest.advanceTimersByTimeAsync(INTERVAL);
    pub.publish(ev(), true);
    await tick();
    pub.publish(ev());
    await pub.flush();
    expect(s.attempts.map((a) => [a.batch.publisherId, a.batch.sequence, a.batch.events.length])).toEqual([
      ['act:run/1/1', 0, 2],
      ['act:run/1/1', 1, 1],
      ['act:run/1/1', 2, 1],
    ]);
  });

  it('does not send anything for a flush with nothing buffered', async () => {
    const s = fakeSender();
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    await pub.flush();
    expect(s.attempts).toHaveLength(0);
  });

  it('sends one batch at a time: a slow first send is not overtaken by the second', async () => {
    const s = fakeSender((attempt) => ({ delayMs: attempt === 1 ? 500 : 5 }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev(), true);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    pub.publish(ev());
    await jest.advanceTimersByTimeAsync(INTERVAL);
    pub.publish(ev(), true);
    await jest.advanceTimersByTimeAsync(100);
    expect(s.attempts).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1000);
    expect(s.attempts.map((a) => a.batch.sequence)).toEqual([0, 1, 2]);
    expect(s.attempts[1].startedAt).toBeGreaterThanOrEqual(s.attempts[0].deliveredAt!);
    expect(s.attempts[2].startedAt).toBeGreaterThanOrEqual(s.attempts[1].deliveredAt!);
    expect(s.attempts[0].deliveredAt).toBe(T0 + 500);
  });

  it('resolves flush() only once the batch is delivered', async () => {
    const s = fakeSender(() => ({ delayMs: 100 }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev());
    let flushed = false;
    const done = pub.flush().then(() => {
      flushed = true;
    });
    await jest.advanceTimersByTimeAsync(99);
    expect(flushed).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await done;
    expect(s.delivered()).toHaveLength(1);
  });

  it('resolves flush() after every earlier batch, including one still in flight', async () => {
    const s = fakeSender((attempt) => ({ delayMs: attempt === 1 ? 300 : 10 }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev(), true);
    await tick();
    pub.publish(ev());
    const done = pub.flush();
    await jest.advanceTimersByTimeAsync(310);
    await done;
    expect(s.delivered().map((a) => a.batch.sequence)).toEqual([0, 1]);
  });

  it('retries a transiently failing send with the SAME sequence, then goes on with the next', async () => {
    const s = fakeSender((attempt) => ({ fail: attempt <= 2 ? new Error('signal failed') : undefined }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev());
    const done = pub.flush();
    await jest.advanceTimersByTimeAsync(2000);
    await done;
    expect(s.attempts.map((a) => a.batch.sequence)).toEqual([0, 0, 0]);
    expect(s.attempts[0].batch).toEqual(s.attempts[2].batch);
    pub.publish(ev());
    await pub.flush();
    expect(s.attempts.map((a) => a.batch.sequence)).toEqual([0, 0, 0, 1]);
  });

  it('rejects flush() when a send keeps failing, after a bounded number of attempts', async () => {
    const s = fakeSender(() => ({ fail: new Error('workflow not found') }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev());
    const result = pub.flush().then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await jest.advanceTimersByTimeAsync(60_000);
    expect(await result).toBe('workflow not found');
    expect(s.attempts.length).toBe(5);
    expect(new Set(s.attempts.map((a) => a.batch.sequence))).toEqual(new Set([0]));
  });

  it('does not retry a send the root run can never take (WorkflowNotFoundError)', async () => {
    const s = fakeSender(() => ({ fail: new WorkflowNotFoundError('root is gone', 'root', undefined) }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev());
    await expect(pub.flush()).rejects.toThrow('root is gone');
    expect(s.attempts).toHaveLength(1);
  });

  it('sends nothing more once a batch is lost, and keeps rejecting flush()', async () => {
    const s = fakeSender((attempt) => ({
      fail: attempt === 1 ? new WorkflowNotFoundError('gone', 'root', undefined) : undefined,
    }));
    const pub = new WirePublisher(s.send, 'p', INTERVAL);
    pub.publish(ev());
    await expect(pub.flush()).rejects.toThrow('gone');
    pub.publish(ev());
    await expect(pub.flush()).rejects.toThrow('gone');
    expect(s.attempts.map((a) => a.batch.sequence)).toEqual([0]);
  });

  it('causes no unhandled rejection when interval or immediate flushes hit a failing sender', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const s = fakeSender(() => ({ fail: new Error('down') }));
      const pub = new WirePublisher(s.send, 'p', INTERVAL);
      pub.publish(ev());
      await jest.advanceTimersByTimeAsync(60_000);
      pub.publish(ev(), true);
      pub.publish(ev());
      await jest.advanceTimersByTimeAsync(60_000);
      // Node reports unhandled rejections after the microtask queue drains: give it real macrotasks.
      jest.useRealTimers();
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      await expect(pub.flush()).rejects.toThrow('down');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
