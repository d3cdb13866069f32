// Comparing two runs and re-driving runs in bulk: GET /runs/compare?a=&b= (read: both runs the caller's tenant's, else
// 404), POST /bulk (admin: a dry run that counts, or a bulk job that pauses, resumes, cancels or retries every run of
// the tenant a filter matches), GET /bulk/:id (its progress, and its report once done) and POST /bulk/:id/cancel.
import { z } from 'zod';
import { BulkAction, BulkFilter, BulkProgress, InvalidBulkFilterError } from '../../common/bulk-redrive';
import { RunComparison } from '../../common/run-compare';
import { ComparedRunNotFoundError, compareTenantRuns } from '../../client/run-compare';
import { apiRoute, defineRoute } from '../api-route';
import { forbidden } from '../auth';
import { HttpError, runNotFound } from '../errors';
import { RunParams, type Routes } from './context';

const RunId = RunParams.shape.id;
/** GET /runs/compare's query. */
export const CompareQuery = z.object({ a: RunId, b: RunId }).strict();
/** A bulk job's id in a path. */
export const BulkParams = z.object({ id: z.string().regex(/^bulk-[a-f0-9-]{36}$/, 'malformed bulk job id') });
/** POST /bulk's body. */
export const BulkRequest = z
  .object({
    action: BulkAction,
    filter: BulkFilter.default({}),
    /** Count the runs the job would act on, and act on none. */
    dryRun: z.boolean().optional(),
    reason: z.string().max(1000).optional(),
  })
  .strict();

/** GET /runs/compare. */
export const CompareRuns = defineRoute({
  method: 'GET',
  path: '/runs/compare',
  summary: 'Two runs side by side: where they diverge, their steps, tool calls, outputs, tokens, cost and time',
  tags: ['runs'],
  auth: 'read',
  query: CompareQuery,
  responses: { 200: RunComparison, 404: "run_not_found (also for another tenant's run)" },
});

/** POST /bulk. */
export const StartBulk = defineRoute({
  method: 'POST',
  path: '/bulk',
  summary: 'Pause, resume, cancel or retry every run of the tenant a filter matches (dryRun: count them)',
  description:
    'Without a status, pause, resume and cancel act on running runs and retry on failed ones. The job is a workflow: ' +
    'it goes on if this bridge restarts; follow it at GET /bulk/:id.',
  tags: ['bulk'],
  auth: 'admin',
  body: BulkRequest,
  responses: {
    200: {
      description: 'The dry run: how many runs the job would act on',
      schema: z.object({
        dryRun: z.literal(true),
        action: BulkAction,
        filter: BulkFilter,
        matched: z.number(),
        more: z.boolean().describe('more runs matched than one job acts on (5000)'),
        sample: z.array(z.string()),
      }),
    },
    202: {
      description: 'The job has started',
      schema: z.object({ jobId: z.string(), links: z.object({ self: z.string() }) }),
    },
    403: 'forbidden: the token lacks admin, or the filter names another tenant',
  },
});

/** GET /bulk/:id. */
export const GetBulk = defineRoute({
  method: 'GET',
  path: '/bulk/:id',
  summary: "A bulk job's progress (counts and each run's outcome so far), its report once completed",
  tags: ['bulk'],
  auth: 'admin',
  params: BulkParams,
  responses: { 200: BulkProgress, 404: "bulk_job_not_found (also another tenant's)" },
});

/** POST /bulk/:id/cancel. */
export const CancelBulk = defineRoute({
  method: 'POST',
  path: '/bulk/:id/cancel',
  summary: 'Stop a bulk job (the runs it has acted on keep what it did)',
  tags: ['bulk'],
  auth: 'admin',
  params: BulkParams,
  responses: {
    202: z.object({ jobId: z.string(), cancelRequested: z.literal(true) }),
    404: 'bulk_job_not_found',
    409: 'bulk_job_ended (the job has completed, failed or been cancelled already)',
  },
});

const jobNotFound = (id: string) => new HttpError(404, 'bulk_job_not_found', `no bulk job with id "${id}"`);

export const redriveRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, CompareRuns, async ({ caller: { tenant }, query: { a, b } }) => {
    try {
      return await compareTenantRuns(ctx.agio, tenant, a, b);
    } catch (err) {
      if (err instanceof ComparedRunNotFoundError) throw runNotFound(err.runId);
      throw err;
    }
  });

  apiRoute(app, ctx.tokens, StartBulk, async ({ req, caller, body, reply }) => {
    // A token acts on its own tenant's runs; naming another tenant is refused, not silently narrowed.
    if (body.filter.tenant !== undefined && body.filter.tenant !== caller.tenant)
      throw forbidden('admin', `a token re-drives its own tenant's runs ("${caller.tenant}")`);
    const filter = { ...body.filter, tenant: caller.tenant };
    const bulk = ctx.agio.bulk;
    try {
      if (body.dryRun) return { dryRun: true, ...(await bulk.dryRun(caller.tenant, body.action, filter)) };
      const { jobId } = await bulk.start({
        tenant: caller.tenant,
        action: body.action,
        filter,
        by: caller.identity,
        ...(body.reason ? { reason: body.reason } : {}),
      });
      req.log.info({ jobId, action: body.action, by: caller.identity }, 'bulk job started');
      return reply.status(202).send({ jobId, links: { self: `/bulk/${jobId}` } });
    } catch (err) {
      if (err instanceof InvalidBulkFilterError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
  });

  apiRoute(app, ctx.tokens, GetBulk, async ({ caller, params: { id } }) => {
    const progress = await ctx.agio.bulk.progress(caller.tenant, id);
    if (!progress) throw jobNotFound(id);
    return progress;
  });

  apiRoute(app, ctx.tokens, CancelBulk, async ({ caller, params: { id }, reply }) => {
    if (!(await ctx.agio.bulk.cancel(caller.tenant, id))) {
      // Not running: a job that has ended is still the tenant's (GET /bulk/:id answers it), so it is not "not found".
      const ended = await ctx.agio.bulk.progress(caller.tenant, id);
      if (!ended) throw jobNotFound(id);
      throw new HttpError(409, 'bulk_job_ended', `bulk job "${id}" has already ended (${ended.state})`);
    }
    return reply.status(202).send({ jobId: id, cancelRequested: true });
  });
};
