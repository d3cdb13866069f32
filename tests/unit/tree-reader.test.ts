// readTree over fake logs (one per run id): nested runs that keep their own logs are read from the moment their start
// pointer is met until their own terminal event, each event once and each log in order; a cursor taken at any event
// resumes with exactly the rest; older trees (nested events inline in the root's log) read as one log.
import { readTree, CursorError, type TreeEvent, type TreeLogs } from '../../client/tree-reader';
import { cursorAt, encodeCursor, parseCursor, type TreeCursor } from '../../client/tree-cursor';
import { isTerminalType, type WireEvent } from '../../common';

/** One run's log: events appended with offsets from 0; closed (terminated) when no more will come. */
class FakeLog {
  events: WireEvent[] = [];
  closed = false;
  reads = 0;
  private waiters: (() => void)[] = [];
  constructor(readonly runId: string) {}
  append(...events: Omit<WireEvent, 'offset' | 'timestamp' | 'rootRunId' | 'agent'>[]): this {
    for (const e of events)
      this.events.push({ rootRunId: 'root', agent: 'a', timestamp: 0, ...e, offset: this.events.length });
    for (const w of this.waiters.splice(0)) w();
    return this;
  }
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w();
  }
  async *read(after: number, signal: AbortSignal): AsyncGenerator<WireEvent> {
    this.reads++;
    for (;;) {
      for (const e of this.events.filter((x) => x.offset > after)) {
        after = e.offset;
        await new Promise((r) => setImmediate(r)); // logs interleave as pages arrive
        yield e;
        if (e.runId === this.runId && isTerminalType(e.type)) return;
      }
      // As RunLogs: a log whose terminal event the reader has already had ends at once.
      if (this.events.some((e) => e.runId === this.runId && isTerminalType(e.type))) return;
      if (this.closed) {
        const synthetic = { type: 'RUN_FAILED', runId: this.runId, rootRunId: this.runId, agent: 'unknown', depth: 0 };
        yield { ...synthetic, data: { synthetic: true }, timestamp: 0, offset: after + 1 };
        return;
      }
      if (signal.aborted) return;
      await new Promise<void>((r) => {
        this.waiters.push(r);
        signal.addEventListener('abort', () => r(), { once: true });
      });
      if (signal.aborted) return;
    }
  }
}

class FakeLogs implements TreeLogs {
  readonly logs = new Map<string, FakeLog>();
  log(runId: string): FakeLog {
    if (!this.logs.has(runId)) this.logs.set(runId, new FakeLog(runId));
    return this.logs.get(runId)!;
  }
  read(runId: string, after: number, signal: AbortSignal) {
    return this.log(runId).read(after, signal);
  }
  async eventAt(runId: string, offset: number) {
    return this.logs.get(runId)?.events[offset];
  }
}

const run = (runId: string, depth: number, type = 'STEP_COMPLETED', more: Partial<WireEvent> = {}) => ({
  runId,
  depth,
  type,
  ...more,
});
/** A pointer to `child` (its start or end) in its parent's log. */
const ptr = (child: string, depth: number, type: string) => run(child, depth, type, { ownLog: true });
/** An event of a nested run in its own log. */
const own = (runId: string, depth: number, type = 'STEP_COMPLETED') => run(runId, depth, type, { ownLog: true });

/** A tree: root → C1 (→ G) and C2 concurrently, all complete; with a root step between and after. */
function finishedTree(): FakeLogs {
  const logs = new FakeLogs();
  logs
    .log('root')
    .append(run('root', 0, 'RUN_STARTED'), run('root', 0), ptr('root/c1', 1, 'RUN_STARTED'))
    .append(ptr('root/c2', 1, 'RUN_STARTED'), run('root', 0, 'AGENT_STATE'), ptr('root/c2', 1, 'RUN_COMPLETED'))
    .append(ptr('root/c1', 1, 'RUN_COMPLETED'), run('root', 0), run('root', 0, 'RUN_COMPLETED'));
  logs
    .log('root/c1')
    .append(own('root/c1', 1, 'RUN_STARTED'), own('root/c1', 1), ptr('root/c1/g', 2, 'RUN_STARTED'))
    .append(ptr('root/c1/g', 2, 'RUN_COMPLETED'), own('root/c1', 1), own('root/c1', 1, 'RUN_COMPLETED'));
  logs
    .log('root/c1/g')
    .append(own('root/c1/g', 2, 'RUN_STARTED'), own('root/c1/g', 2), own('root/c1/g', 2, 'RUN_COMPLETED'));
  logs.log('root/c2').append(own('root/c2', 1, 'RUN_STARTED'), own('root/c2', 1), own('root/c2', 1, 'RUN_COMPLETED'));
  return logs;
}

async function readAll(logs: TreeLogs, from?: TreeCursor): Promise<TreeEvent[]> {
  const out: TreeEvent[] = [];
  for await (const e of readTree(logs, 'root', { from })) out.push(e);
  return out;
}

const key = (e: WireEvent) => `${e.runId}@${e.offset}`;

/** Every non-pointer event of every log, once. */
const expected = (logs: FakeLogs) =>
  [...logs.logs.values()].flatMap((l) => l.events.filter((e) => e.runId === l.runId).map(key)).sort();

describe('readTree', () => {
  it('reads an old-style tree (nested events inline, no ownLog) as the one root log, with plain-number cursors', async () => {
    const logs = new FakeLogs();
    logs
      .log('root')
      .append(run('root', 0, 'RUN_STARTED'), run('root/c', 1, 'RUN_STARTED'), run('root/c', 1))
      .append(run('root/c', 1, 'RUN_COMPLETED'), run('root', 0, 'RUN_COMPLETED'));
    const out = await readAll(logs);
    expect(out.map((e) => e.event.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(out.map((e) => encodeCursor(e.cursor))).toEqual(['0', '1', '2', '3', '4']);
    expect(logs.logs.size).toBe(1);
  });

  it('delivers every event of every log once, without pointers, each log in offset order, grandchildren too', async () => {
    const logs = finishedTree();
    const out = await readAll(logs);
    expect(out.map((e) => key(e.event)).sort()).toEqual(expected(logs));
    for (const runId of logs.logs.keys()) {
      const offsets = out.filter((e) => e.event.runId === runId).map((e) => e.event.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    }
    expect(out.map((e) => e.path.join('/'))).toContain('2/2');
    expect(out[out.length - 1].event).toMatchObject({ runId: 'root', type: 'RUN_COMPLETED' });
    expect(encodeCursor(out[out.length - 1].cursor)).toBe('8');
  });

  it('goes on in the parent log past an end pointer only once the child has delivered its terminal event', async () => {
    const logs = finishedTree();
    const out = (await readAll(logs)).map((e) => key(e.event));
    expect(out.indexOf('root/c1@5')).toBeLessThan(out.indexOf('root@7'));
    expect(out.indexOf('root/c2@2')).toBeLessThan(out.indexOf('root@7'));
    expect(out.indexOf('root/c1/g@2')).toBeLessThan(out.indexOf('root/c1@4'));
    // A child's first event follows its start pointer's predecessors.
    expect(out.indexOf('root@1')).toBeLessThan(out.indexOf('root/c1@0'));
  });

  it('resumes from the cursor of any event, open children included, with exactly the events not yet delivered', async () => {
    const logs = finishedTree();
    const all = await readAll(logs);
    expect(all.some((e) => e.cursor.open.size > 0 && [...e.cursor.open.values()].some((c) => c.open.size))).toBe(true);
    for (let i = 0; i < all.length; i++) {
      const id = encodeCursor(all[i].cursor);
      const rest = await readAll(logs, parseCursor(id));
      const seen = [...all.slice(0, i + 1), ...rest].map((e) => key(e.event)).sort();
      expect({ id, seen }).toEqual({ id, seen: expected(logs) });
    }
  });

  it('follows a live tree: a child opened when its start pointer is appended, read until its terminal event', async () => {
    const logs = new FakeLogs();
    const root = logs.log('root').append(run('root', 0, 'RUN_STARTED'));
    const child = logs.log('root/c');
    const reading = readAll(logs);
    await new Promise((r) => setTimeout(r, 20));
    expect(child.reads).toBe(0);
    root.append(ptr('root/c', 1, 'RUN_STARTED'));
    child.append(own('root/c', 1, 'RUN_STARTED'));
    await new Promise((r) => setTimeout(r, 20));
    expect(child.reads).toBe(1);
    child.append(own('root/c', 1), own('root/c', 1, 'RUN_COMPLETED'));
    root.append(ptr('root/c', 1, 'RUN_COMPLETED'), run('root', 0, 'RUN_COMPLETED'));
    const out = await reading;
    expect(out.map((e) => key(e.event))).toEqual(['root@0', 'root/c@0', 'root/c@1', 'root/c@2', 'root@3']);
    expect(out.map((e) => encodeCursor(e.cursor))).toEqual(['0', '1~1:0', '1~1:1', '1', '3']);
  });

  it("delivers a terminated child's end pointer as its terminal event, at the child's next offset", async () => {
    const logs = new FakeLogs();
    logs.log('root').append(run('root', 0, 'RUN_STARTED'), ptr('root/c', 1, 'RUN_STARTED'));
    logs
      .log('root/c')
      .append(own('root/c', 1, 'RUN_STARTED'), own('root/c', 1))
      .close();
    const reading = readAll(logs);
    await new Promise((r) => setTimeout(r, 20));
    logs.log('root').append(ptr('root/c', 1, 'RUN_FAILED'), run('root', 0, 'RUN_COMPLETED'));
    const out = await reading;
    const terminal = out.find((e) => e.event.runId === 'root/c' && e.event.type === 'RUN_FAILED')!.event;
    expect(terminal).toMatchObject({ offset: 2, depth: 1, ownLog: true });
    expect(out.map((e) => key(e.event))).toEqual(['root@0', 'root/c@0', 'root/c@1', 'root/c@2', 'root@3']);
  });

  it('ends a terminated tree: a child closed without terminal or end pointer gets one shaped as the child', async () => {
    const logs = new FakeLogs();
    logs
      .log('root')
      .append(run('root', 0, 'RUN_STARTED'), ptr('root/c', 1, 'RUN_STARTED'))
      .close();
    logs
      .log('root/c')
      .append(own('root/c', 1, 'RUN_STARTED'))
      .close();
    const out = await readAll(logs);
    expect(out.map((e) => key(e.event))).toEqual(['root@0', 'root/c@0', 'root/c@1', 'root@2']);
    expect(out[2].event).toMatchObject({ runId: 'root/c', depth: 1, type: 'RUN_FAILED' });
  });

  it('reads the whole log of a child whose start pointer the parent no longer holds (continued as new)', async () => {
    const logs = finishedTree();
    const root = logs.log('root');
    const tail = root.events.slice(4); // offsets 4.. : c2's start pointer and c1's are gone
    root.events = tail;
    const out = await readAll(logs);
    expect(out.map((e) => key(e.event))).toEqual(
      expect.arrayContaining(['root/c2@0', 'root/c2@2', 'root/c1/g@2', 'root/c1@5', 'root@8']),
    );
    expect(out.filter((e) => e.event.runId === 'root/c1').length).toBe(4);
  });

  it('leaves no listener behind per finished child (a run with many children does not pile them up)', async () => {
    const original = { add: EventTarget.prototype.addEventListener, remove: EventTarget.prototype.removeEventListener };
    const logs = new FakeLogs();
    const root = logs.log('root').append(run('root', 0, 'RUN_STARTED'));
    for (let i = 0; i < 30; i++) {
      const id = `root/c${i}`;
      root.append(ptr(id, 1, 'RUN_STARTED'), ptr(id, 1, 'RUN_COMPLETED'));
      logs.log(id).append(own(id, 1, 'RUN_STARTED'), own(id, 1, 'RUN_COMPLETED'));
    }
    root.append(run('root', 0, 'RUN_COMPLETED'));
    // Abort listeners outstanding (added, not removed) at most at any moment of the read.
    let outstanding = 0;
    let most = 0;
    const add = jest.spyOn(EventTarget.prototype, 'addEventListener');
    const remove = jest.spyOn(EventTarget.prototype, 'removeEventListener');
    add.mockImplementation(function (this: EventTarget, type, ...rest) {
      if (type === 'abort') most = Math.max(most, ++outstanding);
      return original.add.call(this, type, ...rest);
    });
    remove.mockImplementation(function (this: EventTarget, type, ...rest) {
      if (type === 'abort') outstanding--;
      return original.remove.call(this, type, ...rest);
    });
    try {
      expect((await readAll(logs)).length).toBe(62);
    } finally {
      add.mockRestore();
      remove.mockRestore();
    }
    expect(most).toBeLessThan(20);
  });

  it('rejects a cursor naming an offset that is not a pointer', async () => {
    await expect(readAll(finishedTree(), parseCursor('3~1:0'))).rejects.toBeInstanceOf(CursorError);
  });

  it('stops every log reader when the client stops', async () => {
    const logs = new FakeLogs();
    logs.log('root').append(run('root', 0, 'RUN_STARTED'), ptr('root/c', 1, 'RUN_STARTED'));
    logs.log('root/c').append(own('root/c', 1, 'RUN_STARTED'));
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const e of readTree(logs, 'root', { signal: stop.signal, from: cursorAt() })) {
      seen.push(key(e.event));
      if (seen.length === 2) stop.abort();
    }
    expect(seen).toEqual(['root@0', 'root/c@0']);
  });
});
