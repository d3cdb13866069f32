// SSE framing of the bridge: one frame per event (id = offset, event = type, one JSON data line), comment
// frames for heartbeats, and the resume offset from Last-Event-ID or ?after=.
import type { WireEvent } from '../../common';
import { resumePosition, sseComment, sseFrame } from '../../bridge/sse';
import { encodeCursor } from '../../client/tree-cursor';

/** The durable offset a position resumes after (what these cases were written against). */
const resumeOffset = (lastEventId: string | string[] | undefined, after: unknown) =>
  resumePosition(lastEventId, after)?.after;

function event(extra: Partial<WireEvent> = {}): WireEvent {
  return { type: 'STEP_DELTA', runId: 'r', rootRunId: 'r', agent: 'a', depth: 0, timestamp: 1, offset: 7, ...extra };
}

/** Parses one frame the way an EventSource does (field: value lines, blank line ends the frame). */
function parseFrame(frame: string): { id?: string; event?: string; data: string[]; comments: string[] } {
  expect(frame.endsWith('\n\n')).toBe(true);
  const out = { data: [] as string[], comments: [] as string[] } as {
    id?: string;
    event?: string;
    data: string[];
    comments: string[];
  };
  for (const line of frame.slice(0, -2).split(/\r\n|\r|\n/)) {
    if (line.startsWith(':')) out.comments.push(line.slice(1).trimStart());
    else if (line.startsWith('id: ')) out.id = line.slice(4);
    else if (line.startsWith('event: ')) out.event = line.slice(7);
    else if (line.startsWith('data: ')) out.data.push(line.slice(6));
    else throw new Error(`unexpected line ${JSON.stringify(line)}`);
  }
  return out;
}

describe('sseFrame', () => {
  it('writes exactly `id: N\\nevent: TYPE\\ndata: <json>\\n\\n`', () => {
    const e = event({ offset: 12, type: 'RUN_STARTED' });
    expect(sseFrame(e)).toBe(`id: 12\nevent: RUN_STARTED\ndata: ${JSON.stringify(e)}\n\n`);
  });

  it('writes an event of a type this release does not know without an `event:` line (a plain message)', () => {
    const e = event({ offset: 13, type: 'FUTURE_THING' as WireEvent['type'] });
    expect(sseFrame(e)).toBe(`id: 13\ndata: ${JSON.stringify(e)}\n\n`);
  });

  it('keeps the data on one line when the content has newlines and carriage returns', () => {
    const e = event({ delta: { content: 'line 1\nline 2\r\nline 3\rend\n\n' } });
    const frame = sseFrame(e);
    expect(frame.split('\n')).toHaveLength(5); // id, event, data, '', ''
    expect(frame).not.toContain('\r');
    const parsed = parseFrame(frame);
    expect(parsed.data).toHaveLength(1);
    expect(JSON.parse(parsed.data[0])).toEqual(e);
  });

  it('round-trips the whole event, offset included, through the data line', () => {
    const e = event({
      offset: 0,
      type: 'STEP_COMPLETED',
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
      data: { note: 'ünïcödé ✓' },
    });
    const parsed = parseFrame(sseFrame(e));
    expect(parsed).toMatchObject({ id: '0', event: 'STEP_COMPLETED' });
    expect(JSON.parse(parsed.data[0])).toEqual(e);
  });
});

describe('sseComment', () => {
  it('writes a comment frame', () => {
    expect(sseComment('heartbeat')).toBe(': heartbeat\n\n');
  });

  it('keeps a comment with newlines on one line so it cannot inject fields', () => {
    const frame = sseComment('a\nevent: RUN_COMPLETED\r\ndata: {}');
    expect(frame).toBe(': a event: RUN_COMPLETED data: {}\n\n');
    expect(parseFrame(frame)).toEqual({ data: [], comments: ['a event: RUN_COMPLETED data: {}'] });
  });
});

describe('resumeOffset', () => {
  it('is -1 (from the start) without Last-Event-ID or ?after', () => {
    expect(resumeOffset(undefined, undefined)).toBe(-1);
    expect(resumeOffset(undefined, '')).toBe(-1);
  });

  it('reads ?after=', () => {
    expect(resumeOffset(undefined, '41')).toBe(41);
    expect(resumeOffset(undefined, '-1')).toBe(-1);
    expect(resumeOffset(undefined, '0')).toBe(0);
  });

  it('reads Last-Event-ID', () => {
    expect(resumeOffset('17', undefined)).toBe(17);
  });

  it('lets Last-Event-ID win over ?after', () => {
    expect(resumeOffset('17', '3')).toBe(17);
    expect(resumeOffset('17', 'garbage')).toBe(17);
  });

  it('uses the first value of a repeated Last-Event-ID header', () => {
    expect(resumeOffset(['9', '4'], '1')).toBe(9);
  });

  it('falls back to ?after when the header array is empty', () => {
    expect(resumeOffset([], '5')).toBe(5);
  });

  it('tolerates surrounding whitespace', () => {
    expect(resumeOffset(' 8 ', undefined)).toBe(8);
  });

  it('reads an id with a lane position as the offset and the position', () => {
    const plain = (after: number) => ({ after, open: new Map() });
    expect(resumePosition('17.1764000000000123', undefined)).toEqual({
      after: 17,
      cursor: plain(17),
      lane: 1764000000000123,
    });
    expect(resumePosition(undefined, '-1.5')).toEqual({ after: -1, cursor: plain(-1), lane: 5 });
    expect(resumePosition('17', undefined)).toEqual({ after: 17, cursor: plain(17) });
    expect(resumePosition('1.', undefined)).toBeUndefined();
  });

  it('reads an id with nested logs open as the tree cursor, with or without a lane position', () => {
    const position = resumePosition('17~5:3~5/2:-1.42', undefined)!;
    expect(position).toMatchObject({ after: 17, lane: 42 });
    expect(encodeCursor(position.cursor)).toBe('17~5:3~5/2:-1');
    expect(encodeCursor(resumePosition(undefined, '9~4:0')!.cursor)).toBe('9~4:0');
  });

  it.each(['17~5', '17~5/2:1', '17~5:1~5:1', '17~5:-2', '17~5:3.', '17~5:3.1.2', '17 ~5:3', '17~a:1'])(
    'is undefined for the malformed cursor %j (the route answers 400)',
    (raw) => {
      expect(resumePosition(raw, undefined)).toBeUndefined();
      expect(resumePosition(undefined, raw)).toBeUndefined();
    },
  );

  it.each(['abc', '1.5.5', '1e3', '0x10', '12abc', '--1', '9999999999999999'])(
    'is undefined for the malformed value %j',
    (raw) => {
      expect(resumeOffset(raw, undefined)).toBeUndefined();
      expect(resumeOffset(undefined, raw)).toBeUndefined();
    },
  );

  it('is undefined for offsets below -1', () => {
    expect(resumeOffset('-2', undefined)).toBeUndefined();
    expect(resumeOffset(undefined, '-100')).toBeUndefined();
  });

  it('is undefined for a non-string ?after (a repeated query parameter parsed as an array), unless Last-Event-ID is set', () => {
    expect(resumeOffset(undefined, ['3', '4'])).toBeUndefined();
    expect(resumeOffset(undefined, { x: 1 })).toBeUndefined();
    expect(resumeOffset('6', ['3', '4'])).toBe(6);
  });
});
