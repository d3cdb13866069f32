// OpenStreams: a closing bridge ends every open SSE stream once, and a stream that opens after it began closing at
// once.
import { goingAwayComment, OpenStreams } from '../../bridge/open-streams';

describe('OpenStreams', () => {
  it('says goodbye to every open stream once, and not to one that has ended', () => {
    const streams = new OpenStreams();
    const a = jest.fn();
    const b = jest.fn();
    const ended = jest.fn();
    streams.add(a);
    streams.add(b);
    streams.add(ended)();
    expect(streams.size).toBe(2);
    streams.closeAll();
    streams.closeAll();
    expect([a.mock.calls.length, b.mock.calls.length, ended.mock.calls.length]).toEqual([1, 1, 0]);
    expect(streams.size).toBe(0);
  });

  it('ends a stream that opens while the bridge is closing at once', () => {
    const streams = new OpenStreams();
    streams.closeAll();
    const late = jest.fn();
    streams.add(late);
    expect(late).toHaveBeenCalledTimes(1);
    expect(streams.size).toBe(0);
  });

  it('names the id to resume after in a comment line', () => {
    expect(goingAwayComment('17.4')).toBe(': bridge shutting down; reconnect with Last-Event-ID: 17.4\n\n');
  });
});
