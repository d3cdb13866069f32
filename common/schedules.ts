// Schedules: an agent started on a cron or interval schedule (Temporal Schedules), declared in an agents file or
// created over HTTP, the CLI or the client. One shape for all of them; every field is checked here, so a bad cron
// expression, interval or time zone is a clear 400 (or an agents-file error) rather than the server's refusal.
import { z } from 'zod';
import { RunLimitRequest } from './limits';

/** A schedule's own name, unique per tenant (the Temporal schedule id adds the tenant, see scheduleIdOf). */
export const ScheduleName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'schedule ids are 1-64 letters, digits, _ or -');

/** What happens when a run is due while the schedule's previous run still runs (Temporal's overlap policies). */
export const SCHEDULE_OVERLAP = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'];
/** One of {@link SCHEDULE_OVERLAP}. */
export const ScheduleOverlap = z.enum(SCHEDULE_OVERLAP as [string, ...string[]], {
  message: `one of ${SCHEDULE_OVERLAP.join(', ')}`,
});

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Milliseconds of a duration written `90s`, `5m`, `1h30m`, `2d` or as a number of milliseconds; undefined if not one.
 */
export function durationMs(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (!/^(\d+(ms|s|m|h|d))+$/.test(value.trim())) return undefined;
  let total = 0;
  for (const [, n, unit] of value.trim().matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(n) * UNITS[unit];
  return total;
}

/** A duration (see {@link durationMs}) at least `min` milliseconds long. */
const duration = (min: number) =>
  z
    .union([z.string(), z.number()])
    .refine(
      (v) => (durationMs(v) ?? -1) >= min,
      `a duration such as 30s, 5m, 1h or 2d (or milliseconds)${min ? `, at least ${min / 1000}s` : ''}`,
    );

/** Shortest interval a schedule may have: a schedule is for minutes and hours, not a busy loop. */
export const MIN_SCHEDULE_INTERVAL_MS = 1000;

/** The macros a cron expression may be, with the five fields each stands for. */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MACROS = Object.keys(CRON_MACROS);
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
/** The five fields of a cron expression: name, lowest, highest, and names standing for numbers (from `base`). */
export const CRON_FIELDS: readonly (readonly [string, number, number, string[], number])[] = [
  ['minute', 0, 59, [], 0],
  ['hour', 0, 23, [], 0],
  ['day of month', 1, 31, [], 0],
  ['month', 1, 12, MONTHS, 1],
  ['day of week', 0, 7, DAYS, 0],
];

/** The number one value of cron field `i` stands for (a number, or a name such as JAN or MON); NaN if neither. */
export function cronFieldValue(i: number, value: string): number {
  const [, , , names, base] = CRON_FIELDS[i];
  const named = names.indexOf(value.toUpperCase());
  return named >= 0 ? named + base : /^\d+$/.test(value) ? Number(value) : NaN;
}

/** Why a cron expression is not one Agio accepts (five fields, or @daily and the like); undefined when it is. */
export function cronProblem(cron: string): string | undefined {
  const text = cron.trim();
  if (text.startsWith('@'))
    return MACROS.includes(text.toLowerCase()) ? undefined : `"${cron}": the macros are ${MACROS.join(', ')}`;
  if (/^CRON_TZ=|^TZ=/i.test(text)) return `"${cron}": give the time zone as "timezone", not in the expression`;
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    return `"${cron}": a cron expression has five fields (minute hour day-of-month month day-of-week), not ${fields.length}`;
  for (let i = 0; i < 5; i++) {
    const [name, lo, hi] = CRON_FIELDS[i];
    for (const item of fields[i].split(',')) {
      const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
      const bounds = m && m[1] !== '*' ? m[1].split('-').map((v) => cronFieldValue(i, v)) : [lo];
      const bad = !m || bounds.some((b) => !(b >= lo && b <= hi)) || (m[2] !== undefined && Number(m[2]) < 1);
      if (bad || (bounds.length === 2 && bounds[0] > bounds[1]))
        return `"${cron}": the ${name} field "${fields[i]}" is not a value from ${lo} to ${hi}, a range a-b, * or a list of them (with /step)`;
    }
  }
  return undefined;
}

/** Whether `zone` is an IANA time zone this process knows. */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** What a schedule runs and when, before the check that it has exactly one timing (agents files extend it). */
export const ScheduleFields = z
  .object({
    id: ScheduleName,
    /**
     * The agent, by name: each run resolves it on the worker that takes it, so the schedule follows the agents file.
     */
    agent: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent names are 1-64 letters, digits, _ or -'),
    /** The prompt every run starts with. */
    input: z
      .string()
      .min(1)
      .max(64 * 1024),
    /** Cron expressions (five fields, or @daily and the like), in `timezone`. */
    cron: z
      .union([z.string(), z.array(z.string()).min(1).max(10)])
      .transform((c) => (Array.isArray(c) ? c : [c]))
      .superRefine((crons, ctx) => {
        for (const c of crons) {
          const problem = cronProblem(c);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }
      })
      .optional(),
    /** Every this long (`30s`, `5m`, `1h`, or milliseconds). */
    every: duration(MIN_SCHEDULE_INTERVAL_MS).optional(),
    /** IANA time zone of the cron expressions (default UTC). */
    timezone: z.string().max(64).refine(knownTimeZone, 'an IANA time zone such as Europe/Paris or UTC').optional(),
    /** Each run starts up to this much later than due, at random (spreads schedules that fall on the same minute). */
    jitter: duration(0).optional(),
    /** A run due while the previous one still runs (default skip). */
    overlap: ScheduleOverlap.optional(),
    /** After an outage, runs missed by at most this long are still started (default 1m). */
    catchupWindow: duration(10_000).optional(),
    /** Pause the schedule when a run fails. */
    pauseOnFailure: z.boolean().optional(),
    /** Created paused. */
    paused: z.boolean().optional(),
    /** Why it is paused, or any note for operators. */
    note: z.string().max(256).optional(),
    /** Each run's limits over the agent's own (over HTTP they may only tighten them). */
    limits: RunLimitRequest.optional(),
  })
  .strict();

/** The check every schedule passes: exactly one of cron and every. */
export const oneTiming = [
  (d: { cron?: unknown; every?: unknown }) => (d.cron ? 1 : 0) + (d.every !== undefined ? 1 : 0) === 1,
  { message: 'a schedule needs exactly one of "cron" (e.g. "0 9 * * MON-FRI") or "every" (e.g. "15m")' },
] as const;

/** What a schedule runs and when: the same fields in an agents file, over HTTP and in the client. */
export const ScheduleDeclaration = ScheduleFields.refine(...oneTiming);
/** A schedule as declared (before defaults). */
export type ScheduleDeclaration = z.infer<typeof ScheduleDeclaration>;

/** Who made a schedule: an agents file (applied by the workers that serve it) or a caller of the API. */
export type ScheduleSource = 'agents-file' | 'api';

/** The memo of every Agio schedule: its tenant, its agent, who made it and its declaration as given. */
export interface ScheduleMemo {
  tenant: string;
  agent: string;
  source: ScheduleSource;
  declaration: ScheduleDeclaration;
}

/** The search attribute Temporal sets on every workflow a schedule starts: the schedule's (Temporal) id. */
export const SCHEDULED_BY = 'TemporalScheduledById';

/** The Temporal schedule id of a tenant's schedule: `agio/<tenant>/<id>` (ids hold no `/`, so it is unambiguous). */
export const scheduleIdOf = (tenant: string, id: string): string => `agio/${tenant}/${id}`;

/** A tenant's own schedule id from a Temporal schedule id of that tenant; undefined for any other id. */
export function scheduleNameOf(tenant: string, scheduleId: string | undefined): string | undefined {
  const prefix = `agio/${tenant}/`;
  return scheduleId?.startsWith(prefix) ? scheduleId.slice(prefix.length) : undefined;
}
