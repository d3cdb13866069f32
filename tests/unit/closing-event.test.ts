// The synthetic terminal event of a root closed without one: its type and error type follow Temporal's status.
import { closingEvent, endedWith } from '../../client/closing-event';

const described = (name: string) => ({
  status: { code: 0, name },
  memo: { tenant: 'default', agent: 'asker' },
  closeTime: new Date(1_700_000_000_000),
});

describe('closingEvent', () => {
  it.each([
    ['TERMINATED', 'RUN_FAILED', 'Terminated'],
    ['TIMED_OUT', 'RUN_FAILED', 'TimedOut'],
    ['FAILED', 'RUN_FAILED', 'Error'],
  ])('tells a root %s with %s (%s), marked synthetic', (status, type, errorType) => {
    const event = closingEvent('run-1', described(status) as never, 7);
    expect(event).toEqual({
      type,
      runId: 'run-1',
      rootRunId: 'run-1',
      agent: 'asker',
      depth: 0,
      offset: 7,
      timestamp: 1_700_000_000_000,
      data: { error: { type: errorType, message: expect.any(String) }, synthetic: true, status: status.toLowerCase() },
    });
  });

  it('tells a cancelled or completed root with its own terminal type, and nothing while it runs', () => {
    expect(closingEvent('run-1', described('CANCELLED') as never, 3)?.type).toBe('RUN_CANCELLED');
    expect(closingEvent('run-1', described('COMPLETED') as never, 3)?.type).toBe('RUN_COMPLETED');
    expect(closingEvent('run-1', described('RUNNING') as never, 3)).toBeUndefined();
    expect(closingEvent('run-1', described('CONTINUED_AS_NEW') as never, 3)).toBeUndefined();
  });

  it('ends the last page with it', () => {
    const event = closingEvent('run-1', described('TIMED_OUT') as never, 5)!;
    const page = endedWith({ events: [], firstOffset: 0, lastOffset: 4, ended: false }, event);
    expect(page).toEqual({ events: [event], firstOffset: 0, lastOffset: 5, ended: true });
  });
});
