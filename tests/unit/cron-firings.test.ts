// Counting a cron expression's firings in a span, which bounds schedule backfills (POST /schedules/:id/backfill).
import { cronFiringsBetween } from '../../common/cron-firings';

const at = (iso: string) => new Date(iso);

describe('cronFiringsBetween', () => {
  it('counts every minute of a whole day, and stops soon after the limit', () => {
    expect(cronFiringsBetween('* * * * *', at('2026-03-02T00:00:00Z'), at('2026-03-03T00:00:00Z'), 1e6)).toBe(1440);
    const capped = cronFiringsBetween('* * * * *', at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'), 1000);
    expect(capped).toBeGreaterThan(1000);
    expect(capped).toBeLessThanOrEqual(1000 + 1440);
  });

  it('counts weekdays, names and ranges, and the part days at both ends of the span', () => {
    // Monday 2 March to Monday 9 March 2026: five weekdays at 09:00.
    expect(cronFiringsBetween('0 9 * * MON-FRI', at('2026-03-02T00:00:00Z'), at('2026-03-09T00:00:00Z'), 1e6)).toBe(5);
    // 10:30 to 13:30: the hours 11, 12 and 13 on the hour.
    expect(cronFiringsBetween('@hourly', at('2026-03-02T10:30:00Z'), at('2026-03-02T13:30:00Z'), 1e6)).toBe(3);
    // Every 15 minutes over one day: 96, as the README's backfill example says.
    expect(cronFiringsBetween('*/15 * * * *', at('2026-03-02T00:00:00Z'), at('2026-03-03T00:00:00Z'), 1e6)).toBe(96);
  });

  it('takes a day that matches its day of month or its day of week when both are restricted, as cron does', () => {
    // March 2026: the 1st and 15th, and the Sundays (1, 8, 15, 22, 29): 1, 8, 15, 22, 29 → 5 days.
    expect(cronFiringsBetween('0 0 1,15 * SUN', at('2026-03-01T00:00:00Z'), at('2026-04-01T00:00:00Z'), 1e6)).toBe(5);
    // Only the day of month restricted: the 1st and the 15th.
    expect(cronFiringsBetween('0 0 1,15 * *', at('2026-03-01T00:00:00Z'), at('2026-04-01T00:00:00Z'), 1e6)).toBe(2);
    // 7 is Sunday too.
    expect(cronFiringsBetween('0 0 * * 7', at('2026-03-01T00:00:00Z'), at('2026-04-01T00:00:00Z'), 1e6)).toBe(5);
  });
});
