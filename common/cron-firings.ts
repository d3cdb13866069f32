// How many times a cron expression fires in a span of time, to bound backfills before any run starts (Temporal's
// scheduler would start them all).
const CRON_MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const CRON_NAMES = [
  [],
  [],
  [],
  ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
];
const CRON_BOUNDS = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** The values one field of a (valid, see cronProblem in schedules.ts) cron expression matches. */
function cronValues(field: string, i: number): Set<number> {
  const [lo, hi] = CRON_BOUNDS[i];
  const base = i === 3 ? 1 : 0;
  const value = (v: string) => {
    const named = CRON_NAMES[i].indexOf(v.toUpperCase());
    return named >= 0 ? named + base : Number(v);
  };
  const values = new Set<number>();
  for (const item of field.split(',')) {
    const [range, step] = item.split('/');
    const [from, to] = range === '*' ? [lo, hi] : range.split('-').map(value);
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
