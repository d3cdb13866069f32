// Tree cursors (where a reader of a run tree stands) as SSE ids: round trips, plain numbers for a tree with no child
// open, malformed ids refused, and which events a cursor has, when a reader can serve a client, and joins.
import { cursorAt, encodeCursor, hasEvent, isBehind, joinCursors, parseCursor } from '../../client/tree-cursor';

const c = (text: string) => parseCursor(text)!;

describe('tree cursors', () => {
  it.each(['-1', '0', '17', '17~5:3', '17~5:-1~5/2:4~9:0', '3~1:0~1/0:0~1/0/2:7'])('round-trips %s', (id) => {
    expect(encodeCursor(c(id))).toBe(id);
  });

  it('encodes children in offset order whatever order they were opened in', () => {
    expect(encodeCursor(c('20~9:1~5:2'))).toBe('20~5:2~9:1');
  });

  it('is a plain number when no child is open', () => {
    expect(encodeCursor(cursorAt(42))).toBe('42');
  });

  it.each([
    '',
    'x',
    '-2',
    '1.5',
    '17~',
    '17~5',
    '17~:3',
    '17~5:x',
    '17~5:-2',
    '17~5/2:1',
    '17~5:1~5:2',
    '17~-5:1',
    '1~1:1 ',
    `1${'~1:1'.repeat(2)}`,
  ])('refuses %j', (id) => {
    expect(parseCursor(id)).toBeUndefined();
  });

  it('refuses more open logs than MAX_OPEN_LOGS', () => {
    const parts = Array.from({ length: 300 }, (_, i) => `~${i}:0`).join('');
    expect(parseCursor(`400${parts}`)).toBeUndefined();
  });

  it('knows which events a client at a cursor has', () => {
    const at = c('10~5:3~5/2:1');
    expect(hasEvent(at, [], 10)).toBe(true);
    expect(hasEvent(at, [], 11)).toBe(false);
    expect(hasEvent(at, [5], 3)).toBe(true);
    expect(hasEvent(at, [5], 4)).toBe(false);
    expect(hasEvent(at, [5, 2], 2)).toBe(false);
    expect(hasEvent(at, [5, 1], 99)).toBe(true); // pointer at 1 ≤ 3, not open: delivered whole
    expect(hasEvent(at, [5, 4], 0)).toBe(false); // pointer at 4 > 3: not reached
    expect(hasEvent(at, [3], 50)).toBe(true);
    expect(hasEvent(at, [12], 0)).toBe(false);
  });

  it('tells whether a reader started at one cursor delivers all a client at another lacks', () => {
    expect(isBehind(c('5'), c('10~7:2'))).toBe(true);
    expect(isBehind(c('5~3:1'), c('10~3:4'))).toBe(true);
    expect(isBehind(c('5~3:1'), c('10'))).toBe(true);
    expect(isBehind(c('10~3:4'), c('10~3:2'))).toBe(false);
    expect(isBehind(c('10'), c('10~3:2'))).toBe(false); // the reader has child 3 whole: it would not read it again
    expect(isBehind(c('11'), c('10'))).toBe(false);
  });

  it('joins two cursors per log, a child delivered whole on either side staying so', () => {
    // 7 ≤ 10, not open on the left: delivered whole.
    expect(encodeCursor(joinCursors(c('10~3:4'), c('8~3:6~7:1')))).toBe('10~3:6');
    expect(encodeCursor(joinCursors(c('12'), c('10~3:4~11:0')))).toBe('12');
    expect(encodeCursor(joinCursors(c('2'), c('10~3:4')))).toBe('10~3:4');
  });
});
