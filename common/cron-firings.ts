// How many times a cron expression fires in a span of time, to bound backfills before any run starts (Temporal's
// scheduler would start them all).
import { CRON_FIELDS, CRON_MACROS, cronFieldValue } from './schedules';

/** The values field `i` of a (valid, see cronProblem) cron expression matches. */
function cronValues(field: string, i: number): Set<number> {
  const [, lo, hi] = CRON_FIELDS[i];
  const values = new Set<number>();
  for (const item of field.split(',')) {
    const [range, step] = item.split('/');
    const [from, to] = range === '*' ? [lo, hi] : range.split('-').map((v) => cronFieldValue(i, v));
    const last = to ?? (step === undefined ? from : hi);
    for (let v = from; v <= last; v += Math.max(1, Number(step ?? 1) || 1)) values.add(i === 4 && v === 7 ? 0 : v);
  }
  return values;
}

/**
 * About how many times `cron` fires from `start` to `end`, counted on UTC days (a time zone moves the ends of the
 * range by hours, not the count), stopping once past `limit`. As cron does, a day matches its day-of-month or its
 * day-of-week when both are restricted, both when either is `*`.
 */
export function cronFiringsBetween(cron: string, start: Date, end: Date, limit: number): number {
  const text = cron.trim();
  const fields = (CRON_MACROS[text.toLowerCase()] ?? text).split(/\s+/);
  const [minutes, hours, days, months, weekdays] = fields.map(cronValues);
  const either = !fields[2].startsWith('*') && !fields[4].startsWith('*');
  const perDay = minutes.size * hours.size;
  let count = 0;
  const day = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
  for (; day < end && count <= limit; day.setUTCDate(day.getUTCDate() + 1)) {
    if (!months.has(day.getUTCMonth() + 1)) continue;
    const onDate = days.has(day.getUTCDate());
    const onWeekday = weekdays.has(day.getUTCDay());
    if (!(either ? onDate || onWeekday : onDate && onWeekday)) continue;
    const next = day.getTime() + 86_400_000;
    if (day >= start && next <= end.getTime()) {
      count += perDay;
      continue;
    }
    for (const h of hours)
      for (const m of minutes) {
        const at = day.getTime() + h * 3_600_000 + m * 60_000;
        if (at >= start.getTime() && at <= end.getTime()) count++;
      }
  }
  return count;
}
