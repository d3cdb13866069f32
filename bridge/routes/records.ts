// What the stores recorded: GET /sessions/:id, GET /runs/:id/trace and GET /runs/:id/citations (501 without stores).
import { z } from 'zod';
import { tenantOf } from '../auth';
import { HttpError } from '../errors';
import { describeRun, rootRunIdOf } from '../runs';
import { RunParams, type Routes } from './context';

const SessionParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'malformed session id') });

export const recordRoutes: Routes = (app, ctx) => {
  const stores = () => {
    if (!ctx.opts.stores)
      throw new HttpError(501, 'no_stores', 'this bridge has no stores configured (set MONGODB_URI)');
    return ctx.opts.stores;
  };

  app.get('/sessions/:id', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = SessionParams.parse(req.params);
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

  app.get('/runs/:id/trace', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = RunParams.parse(req.params);
    // A nested run's spans are part of its root's trace.
    const root = rootRunIdOf(await describeRun(ctx.agio.temporal, tenant, id), id);
    const trace = await stores().traces.getTrace(tenant, root);
    if (!trace) throw new HttpError(404, 'trace_not_found', `no trace recorded for run "${root}" yet`);
    return trace;
  });

  app.get('/runs/:id/citations', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = RunParams.parse(req.params);
    await describeRun(ctx.agio.temporal, tenant, id);
    return { runId: id, citations: await stores().citations.listCitations(tenant, id) };
  });
};
