// Agents and runs: GET /agents, POST /runs (start, idempotent with Idempotency-Key), GET /runs (the
// tenant's runs, filtered and paged), GET /runs/:id (status and output) and GET /runs/:id/state (the live state).
import { z } from 'zod';
import { stateView } from '../../client/agio-client';
import { BadPageTokenError, RUN_STATUSES } from '../../client/run-list';
import { stateQuery } from '../../common/messages';
import { agentView, agentsSourceView } from '../agents-view';
import { callerOf, hasScope, tenantOf } from '../auth';
import { withServerSpan } from '../../telemetry/tracing-http';
import { HttpError } from '../errors';
import { DEFAULT_MAX_RUNNING_RUNS_PER_TENANT, RunningRunsQuota } from '../quotas';
import { refuseLimitRaise, refuseMaxTokensRaise } from '../run-limits';
import { describeRun, rootRunIdOf, runStatus } from '../runs';
import { StartRunBody, idempotencyKeyOf, refuseAllowRules, runIdForKey } from '../start-run';
import { RunParams, type Routes } from './context';

const ListRunsQuery = z
  .object({
    agent: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,128}$/, 'agent: 1-128 letters, digits, . _ -')
      .optional(),
    status: z
      .string()
      // Any case: clients of releases that answered Temporal's uppercase names still filter.
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(RUN_STATUSES, { message: `status: one of ${RUN_STATUSES.join(', ')}` }))
      .optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    pageToken: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,4096}$/, 'pageToken: the nextPageToken of an earlier page')
      .optional(),
  })
  .strict();

export const runRoutes: Routes = (app, ctx) => {
  const exists = (runId: string) =>
    ctx.agio.temporal.workflow
      .getHandle(runId)
      .describe()
      .then(
        () => true,
        () => false,
      );
  // A visibility store that cannot count (or is down) admits the start rather than stopping every start: logged.
  const running = new RunningRunsQuota(
    (tenant) =>
      ctx.agio.count({ tenant, status: 'running' }).catch((err: Error) => {
        app.log.warn({ err, tenant }, 'running-runs quota: visibility could not count, start admitted');
        return 0;
      }),
    ctx.opts.maxRunningRunsPerTenant ?? DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  );

  /** What a tree has spent so far (the spend ledger; undefined without stores, or when they fail). */
  const treeSpend = (tenant: string, rootRunId: string) =>
    ctx.opts.stores?.spend.treeSpend(tenant, rootRunId).catch(() => undefined);

  app.get('/agents', async (req) => {
    tenantOf(req, ctx.tokens, 'read');
    // The agents file by its name only: its path would tell a caller about the machine (bridge/agents-view.ts).
    return {
      ...(ctx.opts.agentsSource ? { source: agentsSourceView(ctx.opts.agentsSource) } : {}),
      agents: ctx.agio.agents.list().map(agentView),
    };
  });

  app.post('/runs', async (req, reply) => {
    const caller = callerOf(req, ctx.tokens, 'start');
    const { tenant } = caller;
    const admin = hasScope(caller, 'admin');
    const key = idempotencyKeyOf(req);
    const { agent, input, ...settings } = StartRunBody.parse(req.body ?? {});
    refuseAllowRules(settings.permissions, (ctx.opts.allowPermissionOverrides ?? false) || admin);
    // An agent this bridge does not hold starts by name: the worker resolves it (the run fails with UnknownAgent when
    // the worker has none by that name) and refuses limits above the agent's own (LimitAboveAgent) as these checks do.
    const spec = ctx.agio.agents.find(agent);
    const mayRaise = (ctx.opts.allowLimitRaise ?? false) || admin;
    if (spec) refuseLimitRaise(spec, settings.limits, mayRaise);
    if (spec) refuseMaxTokensRaise(spec, settings.modelSettings?.maxTokens, mayRaise);
    const runId = key ? runIdForKey(tenant, key) : undefined;
    // A repeat of a start that made its run (same Idempotency-Key) answers with that run even at the quota.
    const release = await running.admit(tenant).catch(async (err: unknown) => {
      if (runId && (await exists(runId))) return () => undefined;
      throw err;
    });
    // A span of its own (joined to a traceparent header), the parent of the run's spans when traces are on.
    const startRun = () =>
      ctx.agio.start(agent, input, {
        tenant,
        ...settings,
        ...(runId ? { runId } : {}),
        ...(spec ? {} : { tightenOnly: !mayRaise }),
      });
    const attributes = { 'http.request.method': 'POST', 'http.route': '/runs', 'gen_ai.agent.name': agent };
    const run = await withServerSpan('POST /runs', req.headers, attributes, startRun).catch((err: Error) => {
      release();
      if (err.name !== 'IdempotencyConflictError') throw err;
      throw new HttpError(
        409,
        'idempotency_conflict',
        `Idempotency-Key "${key}" was used for a different request: send that request again to get its run, or use a new key`,
      );
    });
    // A repeat of an earlier request (same key, same body): its run, as the first answer gave it.
    if (!run.created) {
      release();
      void reply.header('idempotent-replayed', 'true');
    }
    return reply
      .status(run.created ? 201 : 200)
      .send({ runId: run.runId, links: { self: `/runs/${run.runId}`, events: `/runs/${run.runId}/events` } });
  });

  app.get('/runs', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const query = ListRunsQuery.parse(req.query ?? {});
    try {
      return await ctx.agio.list({
        tenant,
        agent: query.agent,
        status: query.status,
        pageSize: query.limit,
        pageToken: query.pageToken,
      });
    } catch (err) {
      if (err instanceof BadPageTokenError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
  });

  app.get('/runs/:id', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = RunParams.parse(req.params);
    const status = await runStatus(ctx.agio.temporal, tenant, id);
    // A running run's cost so far is its tree's spend in the ledger (no query to the run).
    if (status.status !== 'running') return status;
    const treeSpentUsd = await treeSpend(tenant, status.rootRunId ?? id);
    return treeSpentUsd === undefined ? status : { ...status, cost: { treeSpentUsd } };
  });

  app.get('/runs/:id/state', async (req) => {
    const tenant = tenantOf(req, ctx.tokens, 'read');
    const { id } = RunParams.parse(req.params);
    const description = await describeRun(ctx.agio.temporal, tenant, id);
    const view = stateView(await ctx.agio.getHandle(id).workflow.query(stateQuery), description);
    // The tree's spend so far, nested runs still running included (the run's own usage counts finished ones only).
    const treeSpentUsd = await treeSpend(tenant, rootRunIdOf(description, id));
    return view.cost && treeSpentUsd !== undefined ? { ...view, cost: { ...view.cost, treeSpentUsd } } : view;
  });
};
