// The schedule routes' bodies, params and answers as zod schemas (validated by the routes, described by the API
// document), and the bounds a tenant's schedules keep.
import { z } from 'zod';
import { SCHEDULE_OVERLAP, ScheduleFields, ScheduleName, ScheduleOverlap, oneTiming } from '../common/schedules';

/** Most schedules one tenant may have (a schedule starts runs with nobody at the keyboard: keep them countable). */
export const MAX_SCHEDULES_PER_TENANT = 100;
/** Most runs one backfill may start. */
export const MAX_BACKFILL_RUNS = 1000;
/** Longest span one backfill may cover. */
export const MAX_BACKFILL_SPAN_MS = 366 * 86_400_000;

/** `:id` of the schedule routes: the tenant's own id of the schedule. */
export const ScheduleParams = z.object({ id: ScheduleName }).strict();

/** POST /schedules: a schedule's declaration, and whether to start one run at once. */
export const CreateScheduleBody = ScheduleFields.extend({
  /** Start one run at once, besides the schedule's own times. */
  triggerNow: z.boolean().optional(),
}).refine(...oneTiming);

/** PUT /schedules/:id: the whole declaration but its id (paused and note stay as they are unless given). */
export const UpdateScheduleBody = ScheduleFields.omit({ id: true }).refine(...oneTiming);

/** POST /schedules/:id/pause and /unpause. */
export const ScheduleNoteBody = z.object({ note: z.string().max(256).optional() }).strict();

/** POST /schedules/:id/trigger: start one run now, under this overlap policy (default: the schedule's). */
export const TriggerScheduleBody = z.object({ overlap: ScheduleOverlap.optional() }).strict();

/** POST /schedules/:id/backfill: start the runs that were due from `start` to `end` (both in the past). */
export const BackfillScheduleBody = z
  .object({
    start: z.iso.datetime({ offset: true, message: 'start: an ISO 8601 date-time' }),
    end: z.iso.datetime({ offset: true, message: 'end: an ISO 8601 date-time' }),
    /** Default allow_all: a backfill is asked for to start each of those runs. */
    overlap: ScheduleOverlap.optional(),
  })
  .strict()
  .refine((b) => Date.parse(b.start) < Date.parse(b.end), 'end must be after start')
  .refine((b) => Date.parse(b.end) <= Date.now() + 60_000, 'end must not be in the future')
  .refine(
    (b) => Date.parse(b.end) - Date.parse(b.start) <= MAX_BACKFILL_SPAN_MS,
    `a backfill covers at most ${MAX_BACKFILL_SPAN_MS / 86_400_000} days`,
  );

const Timestamp = z.string().describe('ISO 8601 date-time');
const Duration = z.union([z.string(), z.number()]).describe('30s, 5m, 1h, 2d, or milliseconds');

/** A schedule as GET /schedules/:id (and every write) answers it. */
export const ScheduleAnswer = z.object({
  id: z.string(),
  agent: z.string(),
  input: z.string(),
  cron: z.array(z.string()).optional(),
  every: Duration.optional(),
  timezone: z.string().optional(),
  jitter: Duration.optional(),
  overlap: z.enum(SCHEDULE_OVERLAP as [string, ...string[]]),
  catchupWindow: Duration.optional(),
  pauseOnFailure: z.boolean().optional(),
  paused: z.boolean(),
  note: z.string().optional(),
  limits: z.object({}).catchall(z.unknown()).optional(),
  source: z.enum(['agents-file', 'api']),
  nextRunTimes: z.array(Timestamp),
  recentRuns: z.array(z.object({ runId: z.string(), scheduledAt: Timestamp, startedAt: Timestamp })),
  runningRuns: z.array(z.string()),
  counts: z.object({ started: z.number(), skippedOverlap: z.number(), missedCatchupWindow: z.number() }),
  createdAt: Timestamp,
});

/** GET /schedules. */
export const ScheduleListAnswer = z.object({
  schedules: z.array(
    z.object({
      id: z.string(),
      agent: z.string(),
      source: z.enum(['agents-file', 'api']),
      paused: z.boolean(),
      nextRunTimes: z.array(Timestamp),
      recentRuns: z.array(z.string()),
    }),
  ),
});

/** POST /schedules/:id/trigger and /backfill: accepted (the runs show in GET /runs?schedule=<id>). */
export const ScheduleActionAnswer = z.object({ id: z.string(), accepted: z.literal(true) });

/** DELETE /schedules/:id. */
export const ScheduleDeletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) });
