// What the stores recorded: GET /sessions/:id, GET /runs/:id/trace and GET /runs/:id/citations (501 without stores).
import { z } from 'zod';
import { apiRoute, defineRoute } from '../api-route';
import { CitationsAnswer, SessionAnswer, TraceAnswer } from '../api-schemas';
import { HttpError } from '../errors';
import { RunParams, type Routes } from './context';

const SessionParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'malformed session id') });

const noStores = 'no_stores: this bridge has no stores configured (MONGODB_URI)';

/** GET /sessions/:id. */
export const GetSession = defineRoute({
  method: 'GET',
  path: '/sessions/:id',
  summary: 'A session: its runs and their recorded steps',
  tags: ['records'],
  auth: 'read',
  params: SessionParams,
  responses: { 200: SessionAnswer, 404: 'session_not_found', 501: noStores },
});

/** GET /runs/:id/trace. */
export const GetRunTrace = defineRoute({
  method: 'GET',
  path: '/runs/:id/trace',
  summary: "The recorded trace of the run's tree (a nested run: its root's)",
  tags: ['records'],
  auth: 'read',
  params: RunParams,
  responses: { 200: TraceAnswer, 404: 'run_not_found or trace_not_found', 501: noStores },
});

/** GET /runs/:id/citations. */
export const GetRunCitations = defineRoute({
  method: 'GET',
  path: '/runs/:id/citations',
  summary: 'The citations a run recorded',
  tags: ['records'],
  auth: 'read',
  params: RunParams,
  responses: { 200: CitationsAnswer, 404: 'run_not_found', 501: noStores },
});

export const recordRoutes: Routes = (app, ctx) => {
  const stores = () => {
    if (!ctx.opts.stores)
      throw new HttpError(501, 'no_stores', 'this bridge has no stores configured (set MONGODB_URI)');
    return ctx.opts.stores;
  };

  apiRoute(app, ctx.tokens, GetSession, async ({ caller: { tenant }, params: { id } }) => {
    const session = await stores().sessions.getSession(tenant, id);
    if (!session) throw new HttpError(404, 'session_not_found', `no session with id "${id}"`);
    const steps = await Promise.all(
      session.runs.map(async (run) => ({
        runId: run.runId,
        steps: await stores().sessions.listSteps(tenant, run.runId),
      })),
    );
    return { ...session, steps };
  });

  apiRoute(app, ctx.tokens, GetRunTrace, async ({ caller: { tenant }, params: { id } }) => {
    // A nested run's spans are part of its root's trace.
    const { rootRunId: root } = await ctx.agio.getHandle(id).describe({ tenant });
    const trace = await stores().traces.getTrace(tenant, root);
    if (!trace) throw new HttpError(404, 'trace_not_found', `no trace recorded for run "${root}" yet`);
    return trace;
  });

  apiRoute(app, ctx.tokens, GetRunCitations, async ({ caller: { tenant }, params: { id } }) => {
    await ctx.agio.getHandle(id).describe({ tenant });
    return { runId: id, citations: await stores().citations.listCitations(tenant, id) };
  });
};
