// The Wire (a root run's event log) as pure bookkeeping: continuous offsets, deduplicated publish batches,
// paging, the end of the stream, and snapshots for continue-as-new. Plus endsStream and PublishBatch.
import { PublishBatch, endsStream, type EventDraft, type EventType } from '../../common';
import { MAX_PAGE_BYTES, Wire } from '../../workflows/events/wire';

let clock = 1_000;

function draft(type: EventType = 'STEP_DELTA', depth = 0, extra: Partial<EventDraft> = {}): EventDraft {
  return {
    type,
    runId: depth === 0 ? 'root' : `child-${depth}`,
    rootRunId: 'root',
    agent: 'a',
    depth,
    timestamp: clock++,
    ...extra,
  };
}

function batch(publisherId: string, sequence: number, n = 1): PublishBatch {
  return {
    publisherId,
    sequence,
    events: Array.from({ length: n }, (_, i) =>
      draft('STEP_DELTA', 0, { delta: { content: `${publisherId}#${sequence}.${i}` } }),
    ),
  };
}

const offsets = (wire: Wire) => wire.page().events.map((e) => e.offset);

describe('Wire', () => {
  it('gives appended events continuous offsets from 0', () => {
    const wire = new Wire();
    expect(wire.append(draft('RUN_STARTED')).offset).toBe(0);
    expect(wire.append(draft()).offset).toBe(1);
    wire.accept(batch('p', 0, 3));
    expect(wire.append(draft()).offset).toBe(5);
    expect(offsets(wire)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('caps a page at about MAX_PAGE_BYTES of JSON, with at least one event however large', () => {
    const wire = new Wire();
    // 2 bytes a character.
    const big = (kb: number) => draft('STEP_COMPLETED', 0, { data: { text: 'é'.repeat(kb * 512) } });
    for (const kb of [1500, 400, 400, 400, 10]) wire.append(big(kb));
    expect(MAX_PAGE_BYTES).toBe(1024 * 1024);
    expect(offsets(wire)).toEqual([0]); // 1.5 MB alone: one event
    expect(wire.page({ after: 0 }).events.map((e) => e.offset)).toEqual([1, 2]);
    expect(wire.page({ after: 2 }).events.map((e) => e.offset)).toEqual([3, 4]);
    expect(wire.page({ after: 2 }).lastOffset).toBe(4);
  });

  it('keeps the fields of a draft and adds only the offset', () => {
    const wire = new Wire();
    const d = draft('STEP_DELTA', 1, { stepId: 's1', attempt: 2, delta: { content: 'x' } });
    expect(wire.append(d)).toEqual({ ...d, offset: 0 });
  });

  it('reports an empty log as lastOffset -1, firstOffset 0, not ended', () => {
    expect(new Wire().page()).toEqual({ events: [], lastOffset: -1, firstOffset: 0, ended: false });
  });

  describe('accept', () => {
    it('appends a batch’s events in order and reports that it applied them', () => {
      const wire = new Wire();
      expect(wire.accept(batch('p', 0, 2))).toBe(true);
      expect(wire.page().events.map((e) => e.delta?.content)).toEqual(['p#0.0', 'p#0.1']);
    });

    it('ignores a batch whose sequence was already applied (a resent signal)', () => {
      const wire = new Wire();
      expect(wire.accept(batch('p', 0, 2))).toBe(true);
      expect(wire.accept(batch('p', 0, 2))).toBe(false);
      expect(wire.page().lastOffset).toBe(1);
    });

    it('ignores a batch older than the last applied one from the same publisher', () => {
      const wire = new Wire();
      wire.accept(batch('p', 0));
      wire.accept(batch('p', 1));
      wire.accept(batch('p', 2));
      expect(wire.accept(batch('p', 1))).toBe(false);
      expect(wire.page().events.map((e) => e.delta?.content)).toEqual(['p#0.0', 'p#1.0', 'p#2.0']);
    });

    it('accepts a sequence gap (a lost batch does not block later ones)', () => {
      const wire = new Wire();
      wire.accept(batch('p', 0));
      expect(wire.accept(batch('p', 5))).toBe(true);
      expect(wire.accept(batch('p', 3))).toBe(false);
    });

    it('tracks publishers independently', () => {
      const wire = new Wire();
      expect(wire.accept(batch('a', 0))).toBe(true);
      expect(wire.accept(batch('b', 0))).toBe(true);
      expect(wire.accept(batch('a', 1))).toBe(true);
      expect(wire.accept(batch('b', 0))).toBe(false);
      expect(wire.accept(batch('b', 1))).toBe(true);
      expect(wire.page().events.map((e) => e.delta?.content)).toEqual(['a#0.0', 'b#0.0', 'a#1.0', 'b#1.0']);
    });

    it('records an empty batch’s sequence without adding events', () => {
      const wire = new Wire();
      expect(wire.accept({ publisherId: 'p', sequence: 0, events: [] })).toBe(true);
      expect(wire.accept(batch('p', 0))).toBe(false);
      expect(wire.page().lastOffset).toBe(-1);
    });
  });

  describe('page', () => {
    const wireOf = (n: number) => {
      const wire = new Wire();
      for (let i = 0; i < n; i++) wire.append(draft());
      return wire;
    };

    it('returns the events after `after`, at most `limit`', () => {
      const wire = wireOf(10);
      expect(wire.page({ after: 3, limit: 4 }).events.map((e) => e.offset)).toEqual([4, 5, 6, 7]);
      expect(wire.page({ after: -1, limit: 2 }).events.map((e) => e.offset)).toEqual([0, 1]);
      expect(wire.page({ after: 7 }).events.map((e) => e.offset)).toEqual([8, 9]);
    });

    it('returns everything from the start by default', () => {
      expect(offsets(wireOf(5))).toEqual([0, 1, 2, 3, 4]);
    });

    it('returns no events when the reader is caught up or ahead', () => {
      const wire = wireOf(3);
      expect(wire.page({ after: 2 }).events).toEqual([]);
      expect(wire.page({ after: 50 }).events).toEqual([]);
    });

    it('reports lastOffset and firstOffset with every page', () => {
      const page = wireOf(4).page({ after: 1, limit: 1 });
      expect(page).toMatchObject({ lastOffset: 3, firstOffset: 0, ended: false });
      expect(page.events.map((e) => e.offset)).toEqual([2]);
    });

    it('caps a page at 1000 events and returns at least one for a non-positive limit', () => {
      const wire = wireOf(1200);
      expect(wire.page({ limit: 5000 }).events).toHaveLength(1000);
      expect(wire.page({ after: 999 }).events).toHaveLength(200);
      expect(wire.page({ limit: 0 }).events).toHaveLength(1);
    });
  });

  describe('ended', () => {
    it('becomes true only with the root’s terminal event', () => {
      const wire = new Wire();
      wire.append(draft('RUN_STARTED'));
      wire.append(draft('RUN_STARTED', 1));
      wire.append(draft('RUN_COMPLETED', 1));
      wire.append(draft('RUN_FAILED', 2));
      expect(wire.page().ended).toBe(false);
      wire.append(draft('RUN_COMPLETED'));
      expect(wire.page().ended).toBe(true);
    });

    it.each<EventType>(['RUN_COMPLETED', 'RUN_FAILED', 'RUN_CANCELLED'])(
      'ends on a depth-0 %s, also when it arrives in a batch',
      (type) => {
        const wire = new Wire();
        wire.accept({ publisherId: 'p', sequence: 0, events: [draft(type)] });
        expect(wire.page().ended).toBe(true);
      },
    );

    it('does not end on non-terminal root events', () => {
      const wire = new Wire();
      for (const type of ['RUN_STARTED', 'STEP_COMPLETED', 'RUN_PAUSED', 'ERROR', 'STEP_RETRY'] as EventType[])
        wire.append(draft(type));
      expect(wire.page().ended).toBe(false);
    });
  });

  describe('snapshot', () => {
    it('keeps the newest tailSize events, the next offset and the publishers', () => {
      const wire = new Wire();
      wire.accept(batch('p', 4, 5));
      const state = wire.snapshot(2);
      expect(state.nextOffset).toBe(5);
      expect(state.tail.map((e) => e.offset)).toEqual([3, 4]);
      expect(state.publishers).toEqual([['p', 4]]);
    });

    it('keeps nothing in the tail for tailSize 0', () => {
      const wire = new Wire();
      wire.append(draft());
      wire.append(draft());
      expect(wire.snapshot(0).tail).toEqual([]);
    });

    it('is plain JSON (it travels in continue-as-new input)', () => {
      const wire = new Wire();
      wire.accept(batch('p', 0, 2));
      const state = wire.snapshot();
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    });

    it('lets a new Wire continue the offsets where the old one stopped', () => {
      const old = new Wire();
      for (let i = 0; i < 10; i++) old.append(draft());
      const wire = new Wire(JSON.parse(JSON.stringify(old.snapshot(3))));
      expect(wire.append(draft()).offset).toBe(10);
      expect(wire.page()).toMatchObject({ firstOffset: 7, lastOffset: 10 });
      expect(offsets(wire)).toEqual([7, 8, 9, 10]);
    });

    it('lets a new Wire still ignore batches it had already applied', () => {
      const old = new Wire();
      old.accept(batch('a', 0));
      old.accept(batch('a', 1));
      old.accept(batch('b', 0));
      const wire = new Wire(old.snapshot());
      expect(wire.accept(batch('a', 1))).toBe(false);
      expect(wire.accept(batch('b', 0))).toBe(false);
      expect(wire.accept(batch('a', 2))).toBe(true);
      expect(wire.accept(batch('c', 0))).toBe(true);
      expect(wire.page().lastOffset).toBe(4);
    });

    it('serves a reader whose `after` is older than the tail from the tail’s start', () => {
      const old = new Wire();
      for (let i = 0; i < 10; i++) old.append(draft());
      const wire = new Wire(old.snapshot(4));
      const page = wire.page({ after: 2 });
      expect(page.firstOffset).toBe(6);
      expect(page.events.map((e) => e.offset)).toEqual([6, 7, 8, 9]);
      expect(wire.page({ after: 7 }).events.map((e) => e.offset)).toEqual([8, 9]);
    });

    it('reports firstOffset as the next offset when the tail is empty', () => {
      const old = new Wire();
      for (let i = 0; i < 3; i++) old.append(draft());
      const page = new Wire(old.snapshot(0)).page();
      expect(page).toEqual({ events: [], lastOffset: 2, firstOffset: 3, ended: false });
    });
  });
});

describe('endsStream', () => {
  it('is true only for terminal event types at depth 0', () => {
    expect(endsStream({ type: 'RUN_COMPLETED', depth: 0 })).toBe(true);
    expect(endsStream({ type: 'RUN_FAILED', depth: 0 })).toBe(true);
    expect(endsStream({ type: 'RUN_CANCELLED', depth: 0 })).toBe(true);
    expect(endsStream({ type: 'RUN_COMPLETED', depth: 1 })).toBe(false);
    expect(endsStream({ type: 'RUN_STARTED', depth: 0 })).toBe(false);
    expect(endsStream({ type: 'STEP_COMPLETED', depth: 0 })).toBe(false);
  });
});

describe('PublishBatch', () => {
  it('accepts a well-formed batch', () => {
    expect(PublishBatch.safeParse(batch('p', 0, 2)).success).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a missing publisherId', { sequence: 0, events: [] }],
    ['a negative sequence', { publisherId: 'p', sequence: -1, events: [] }],
    ['a fractional sequence', { publisherId: 'p', sequence: 1.5, events: [] }],
    ['events that are not an array', { publisherId: 'p', sequence: 0, events: {} }],
    ['an event of unknown type', { publisherId: 'p', sequence: 0, events: [{ ...draft(), type: 'NOPE' }] }],
    [
      'an event without a timestamp',
      {
        publisherId: 'p',
        sequence: 0,
        events: [{ type: 'STEP_DELTA', runId: 'r', rootRunId: 'r', agent: 'a', depth: 0 }],
      },
    ],
    ['an event with a negative depth', { publisherId: 'p', sequence: 0, events: [draft('STEP_DELTA', -1)] }],
    ['not an object', 'batch'],
  ])('rejects %s', (_label, raw) => {
    expect(PublishBatch.safeParse(raw).success).toBe(false);
  });
});
