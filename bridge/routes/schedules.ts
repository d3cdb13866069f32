// Schedules over HTTP: POST/GET /schedules, GET/PUT/DELETE /schedules/:id and POST /schedules/:id/pause, /unpause,
// /trigger and /backfill. Reading takes `read`; changing a schedule takes `control`, and whatever makes a schedule
// start runs (create, update, trigger, backfill) takes `start` too. Another tenant's schedule answers like a missing
// one.
import { ScheduleExistsError, ScheduleNotFoundError } from '../../client/schedules';
import { cronFiringsBetween } from '../../common/cron-firings';
import { durationMs, type ScheduleDeclaration } from '../../common/schedules';
import { apiRoute, defineRoute } from '../api-route';
import { forbidden, hasScope, type Grant } from '../auth';
import { HttpError } from '../errors';
import { refuseLimitRaise } from '../run-limits';
import {
  BackfillScheduleBody,
  CreateScheduleBody,
  MAX_BACKFILL_RUNS,
  MAX_SCHEDULES_PER_TENANT,
  ScheduleActionAnswer,
  ScheduleAnswer,
  ScheduleDeletedAnswer,
  ScheduleListAnswer,
  ScheduleNoteBody,
  ScheduleParams,
  TriggerScheduleBody,
  UpdateScheduleBody,
} from '../schedule-schemas';
import type { BridgeContext, Routes } from './context';

const NOT_FOUND = "schedule_not_found (also for another tenant's schedule)";
const tags = ['schedules'];

/** POST /schedules. */
export const PostSchedule = defineRoute({
  method: 'POST',
  path: '/schedules',
  summary: 'Create a schedule that starts runs of an agent on a cron or interval schedule',
  description: 'Needs the start scope besides control. The agent is named; each run resolves it on its worker.',
  tags,
  auth: 'control',
  body: CreateScheduleBody,
  responses: {
    201: ScheduleAnswer,
    400: 'invalid_request (a bad cron, interval or time zone), unknown_agent or limit_above_agent',
    409: 'schedule_exists',
    429: 'quota_exceeded: the tenant has as many schedules as the bridge allows',
  },
});

/** GET /schedules. */
export const ListSchedules = defineRoute({
  method: 'GET',
  path: '/schedules',
  summary: "The tenant's schedules",
  tags,
  auth: 'read',
  responses: { 200: ScheduleListAnswer },
});

/** GET /schedules/:id. */
export const GetSchedule = defineRoute({
  method: 'GET',
  path: '/schedules/:id',
  summary: 'A schedule: its declaration, state, next due times and latest runs',
  tags,
  auth: 'read',
  params: ScheduleParams,
  responses: { 200: ScheduleAnswer, 404: NOT_FOUND },
});

/** PUT /schedules/:id. */
export const PutSchedule = defineRoute({
  method: 'PUT',
  path: '/schedules/:id',
  summary: "Replace a schedule's declaration (paused and note stay unless given)",
  tags,
  auth: 'control',
  params: ScheduleParams,
  body: UpdateScheduleBody,
  responses: { 200: ScheduleAnswer, 400: 'invalid_request, unknown_agent or limit_above_agent', 404: NOT_FOUND },
});

/** DELETE /schedules/:id. */
export const DeleteSchedule = defineRoute({
  method: 'DELETE',
  path: '/schedules/:id',
  summary: 'Delete a schedule (runs it started go on)',
  tags,
  auth: 'control',
  params: ScheduleParams,
  responses: { 200: ScheduleDeletedAnswer, 404: NOT_FOUND },
});

/** POST /schedules/:id/pause and /unpause. */
const pauseRoute = (action: 'pause' | 'unpause') =>
  defineRoute({
    method: 'POST',
    path: `/schedules/:id/${action}`,
    summary: action === 'pause' ? 'Pause a schedule: no run starts until it is unpaused' : 'Unpause a schedule',
    tags,
    auth: 'control',
    params: ScheduleParams,
    body: ScheduleNoteBody,
    responses: { 200: ScheduleAnswer, 404: NOT_FOUND },
  });
/** POST /schedules/:id/pause. */
export const PauseSchedule = pauseRoute('pause');
/** POST /schedules/:id/unpause. */
export const UnpauseSchedule = pauseRoute('unpause');

/** POST /schedules/:id/trigger. */
export const TriggerSchedule = defineRoute({
  method: 'POST',
  path: '/schedules/:id/trigger',
  summary: "Start one run now (under the schedule's overlap policy unless given), paused or not",
  tags,
  auth: 'control',
  params: ScheduleParams,
  body: TriggerScheduleBody,
  responses: { 202: ScheduleActionAnswer, 404: NOT_FOUND },
});

/** POST /schedules/:id/backfill. */
export const BackfillSchedule = defineRoute({
  method: 'POST',
  path: '/schedules/:id/backfill',
  summary: 'Start the runs that were due in a past time range (overlap allow_all unless given)',
  tags,
  auth: 'control',
  params: ScheduleParams,
  body: BackfillScheduleBody,
  responses: { 202: ScheduleActionAnswer, 400: 'invalid_request (a bad or too long range)', 404: NOT_FOUND },
});

/** Agio's schedule errors as HTTP errors; Temporal's refusal of a spec (InvalidArgument) as a 400. */
function httpErrorOf(err: unknown): unknown {
  if (err instanceof ScheduleNotFoundError) return new HttpError(404, 'schedule_not_found', err.message);
  if (err instanceof ScheduleExistsError) return new HttpError(409, 'schedule_exists', err.message);
  const cause = (err as { cause?: { code?: number } }).cause;
  if ((err as { code?: number }).code === 3 || cause?.code === 3)
    return new HttpError(400, 'invalid_request', `the schedule was refused: ${(err as Error).message}`);
  return err;
}

const mapped = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((err: unknown) => {
    throw httpErrorOf(err);
  });

/**
 * What a write that starts runs must pass: the `start` scope; an agent this bridge knows when it knows any (its agents
 * file is its workers'), else the worker decides; limits no higher than the agent's own unless the caller may raise
 * them.
 */
function checkStarts(
  ctx: BridgeContext,
  caller: Grant,
  decl: Omit<ScheduleDeclaration, 'id'>,
): { tightenOnly: boolean } {
  if (!hasScope(caller, 'start'))
    throw forbidden('start', 'a schedule starts runs: this token lacks the "start" scope');
  const spec = ctx.agio.agents.find(decl.agent);
  if (!spec && ctx.agio.agents.list().length)
    throw new HttpError(
      400,
      'unknown_agent',
      `unknown agent "${decl.agent}": this bridge's agents are ${ctx.agio.agents
        .list()
        .map((a) => a.name)
        .join(', ')}`,
    );
  const mayRaise = (ctx.opts.allowLimitRaise ?? false) || hasScope(caller, 'admin');
  if (spec) refuseLimitRaise(spec, decl.limits, mayRaise);
  return { tightenOnly: !spec && !mayRaise };
}

export const scheduleRoutes: Routes = (app, ctx) => {
  const schedules = () => ctx.agio.schedules;

  apiRoute(app, ctx.tokens, PostSchedule, async ({ caller, body, reply }) => {
    const { triggerNow, ...decl } = body;
    const { tightenOnly } = checkStarts(ctx, caller, decl);
    if ((await schedules().list(caller.tenant)).length >= MAX_SCHEDULES_PER_TENANT)
      throw new HttpError(
        429,
        'quota_exceeded',
        `the tenant has ${MAX_SCHEDULES_PER_TENANT} schedules, the most a tenant may have: delete one first`,
        { quota: 'schedules', limit: MAX_SCHEDULES_PER_TENANT },
      );
    const view = await mapped(schedules().create(caller.tenant, decl, { tightenOnly, triggerNow }));
    return reply.status(201).send(view);
  });

  apiRoute(app, ctx.tokens, ListSchedules, async ({ caller }) => ({
    schedules: await schedules().list(caller.tenant),
  }));

  apiRoute(app, ctx.tokens, GetSchedule, async ({ caller, params }) =>
    mapped(schedules().get(caller.tenant, params.id)),
  );

  apiRoute(app, ctx.tokens, PutSchedule, async ({ caller, params, body }) => {
    const { tightenOnly } = checkStarts(ctx, caller, body);
    return mapped(schedules().update(caller.tenant, { ...body, id: params.id }, { tightenOnly }));
  });

  apiRoute(app, ctx.tokens, DeleteSchedule, async ({ caller, params }) => {
    await mapped(schedules().delete(caller.tenant, params.id));
    return { id: params.id, deleted: true };
  });

  apiRoute(app, ctx.tokens, PauseSchedule, async ({ caller, params, body }) =>
    mapped(schedules().pause(caller.tenant, params.id, body.note ?? `paused by ${caller.identity}`)),
  );

  apiRoute(app, ctx.tokens, UnpauseSchedule, async ({ caller, params, body }) =>
    mapped(schedules().unpause(caller.tenant, params.id, body.note ?? `unpaused by ${caller.identity}`)),
  );

  apiRoute(app, ctx.tokens, TriggerSchedule, async ({ caller, params, body, reply }) => {
    if (!hasScope(caller, 'start'))
      throw forbidden('start', 'a trigger starts a run: this token lacks the "start" scope');
    await mapped(schedules().trigger(caller.tenant, params.id, body.overlap));
    return reply.status(202).send({ id: params.id, accepted: true });
  });

  apiRoute(app, ctx.tokens, BackfillSchedule, async ({ caller, params, body, reply }) => {
    if (!hasScope(caller, 'start'))
      throw forbidden('start', 'a backfill starts runs: this token lacks the "start" scope');
    const view = await mapped(schedules().get(caller.tenant, params.id));
    const start = new Date(body.start);
    const end = new Date(body.end);
    const every = view.every === undefined ? undefined : durationMs(view.every);
    // A cron schedule is bounded too: `* * * * *` over the longest span would start half a million runs.
    const due = every
      ? (end.getTime() - start.getTime()) / every
      : (view.cron ?? []).reduce((n, cron) => n + cronFiringsBetween(cron, start, end, MAX_BACKFILL_RUNS), 0);
    if (due > MAX_BACKFILL_RUNS)
      throw new HttpError(
        400,
        'invalid_request',
        `a backfill starts at most ${MAX_BACKFILL_RUNS} runs: shorten the range`,
      );
    await mapped(schedules().backfill(caller.tenant, params.id, { start, end, overlap: body.overlap ?? 'allow_all' }));
    return reply.status(202).send({ id: params.id, accepted: true });
  });
};
