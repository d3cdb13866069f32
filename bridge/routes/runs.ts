// Agents and runs: GET /agents, POST /runs (start, idempotent with Idempotency-Key), GET /runs (the
// tenant's runs, filtered and paged), GET /runs/:id (status and output) and GET /runs/:id/state (the live state).
import { z } from 'zod';
import { AgentNameFilter } from '../../common/specs';
import { IdempotencyConflictError, SessionBusyError } from '../../client/agio-client';
import { BadPageTokenError, RUN_STATUSES } from '../../client/run-list';
import { ScheduleName } from '../../common/schedules';
import { agentView, agentsSourceView } from '../agents-view';
import { hasScope } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import {
  AgentsAnswer,
  ApiErrorBody,
  RunPageAnswer,
  RunStateAnswer,
  RunStatusAnswer,
  StartRunAnswer,
} from '../api-schemas';
import { withServerSpan } from '../../telemetry/tracing-http';
import { HttpError } from '../errors';
import { DEFAULT_MAX_RUNNING_RUNS_PER_TENANT, RunningRunsQuota } from '../quotas';
import { refuseLimitRaise, refuseMaxTokensRaise } from '../run-limits';
import { StartRunBody, idempotencyKeyOf, refuseAllowRules, runIdForKey } from '../start-run';
import { RunParams, type Routes } from './context';
import { randomUUID } from 'node:crypto';
import { createRunWebhooks } from '../run-webhooks';

const ListRunsQuery = z
  .object({
    agent: AgentNameFilter.optional(),
    status: z
      .string()
      // Any case: clients of releases that answered Temporal's uppercase names still filter.
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(RUN_STATUSES, { message: `status: one of ${RUN_STATUSES.join(', ')}` }))
      .optional(),
    /** Only the runs this schedule started. */
    schedule: ScheduleName.optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    pageToken: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,4096}$/, 'pageToken: the nextPageToken of an earlier page')
      .optional(),
  })
  .strict();

/** GET /agents. */
export const GetAgents = defineRoute({
  method: 'GET',
  path: '/agents',
  summary: 'The agents this bridge knows, with their tools, limits and sub-agents',
  tags: ['runs'],
  auth: 'read',
  responses: { 200: AgentsAnswer },
});

/** POST /runs. */
export const PostRun = defineRoute({
  method: 'POST',
  path: '/runs',
  summary: 'Start a run of an agent',
  description: 'With Idempotency-Key, the same request again answers 200 with the same run; another body, 409.',
  tags: ['runs'],
  auth: 'start',
  body: StartRunBody,
  headers: {
    'idempotency-key': { description: '1-255 visible ASCII characters (e.g. a UUID): one run per key and tenant' },
    traceparent: { description: "W3C trace context: the run's spans join this trace (when traces are on)" },
  },
  responses: {
    201: { description: 'Started', schema: StartRunAnswer },
    200: {
      description: 'A repeat of an earlier request (same key, same body): its run',
      schema: StartRunAnswer,
      headers: { 'idempotent-replayed': 'true' },
    },
    400: 'invalid_request, permission_override_refused or limit_above_agent',
    409: 'idempotency_conflict: the key was used for another request; session_busy: onActiveRun reject and the session has a run running (activeRunId names it)',
    413: 'input_too_large or body_too_large',
    429: {
      description: "quota_exceeded: the tenant's running runs are at the bridge's cap",
      schema: ApiErrorBody,
      headers: { 'retry-after': 'seconds' },
    },
  },
});

/** GET /runs. */
export const ListRuns = defineRoute({
  method: 'GET',
  path: '/runs',
  summary: "The tenant's root runs, newest first, filtered and paged",
  tags: ['runs'],
  auth: 'read',
  query: ListRunsQuery,
  responses: { 200: RunPageAnswer },
});

/** GET /runs/:id. */
export const GetRun = defineRoute({
  method: 'GET',
  path: '/runs/:id',
  summary: "A run's status, and its output or error once finished",
  tags: ['runs'],
  auth: 'read',
  params: RunParams,
  responses: { 200: RunStatusAnswer, 404: "run_not_found (also for another tenant's run)" },
});

/** GET /runs/:id/state. */
export const GetRunState = defineRoute({
  method: 'GET',
  path: '/runs/:id/state',
  summary: "A run's live state: paused, loop position, children, pending approvals, cost",
  tags: ['runs'],
  auth: 'read',
  params: RunParams,
  responses: { 200: RunStateAnswer, 404: 'run_not_found' },
});

export const runRoutes: Routes = (app, ctx) => {
  const exists = (runId: string) =>
    ctx.agio
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

  apiRoute(app, ctx.tokens, GetAgents, async () => {
    // The agents file by its name only: its path would tell a caller about the machine (bridge/agents-view.ts).
    return {
      ...(ctx.opts.agentsSource ? { source: agentsSourceView(ctx.opts.agentsSource) } : {}),
      agents: ctx.agio.agents.list().map(agentView),
    };
  });

  apiRoute(app, ctx.tokens, PostRun, async ({ req, reply, caller, body }) => {
    const { tenant } = caller;
    const admin = hasScope(caller, 'admin');
    const key = idempotencyKeyOf(req);
    const { agent, input, webhooks: runWebhooks, ...settings } = body;
    refuseAllowRules(settings.permissions, (ctx.opts.allowPermissionOverrides ?? false) || admin);
    // An agent this bridge does not hold starts by name: the worker resolves it (the run fails with UnknownAgent when
    // the worker has none by that name) and refuses limits above the agent's own (LimitAboveAgent) as these checks do.
    const spec = ctx.agio.agents.find(agent);
    const mayRaise = (ctx.opts.allowLimitRaise ?? false) || admin;
    if (spec) refuseLimitRaise(spec, settings.limits, mayRaise);
    if (spec) refuseMaxTokensRaise(spec, settings.modelSettings?.maxTokens, mayRaise);
    // A run with webhooks is named first, so its subscriptions exist before any of its events.
    const runId = key ? runIdForKey(tenant, key) : runWebhooks ? `run-${randomUUID()}` : undefined;
    // A repeat of a start that made its run (same Idempotency-Key) answers with that run even at the quota.
    const release = await running.admit(tenant).catch(async (err: unknown) => {
      if (runId && (await exists(runId))) return () => undefined;
      throw err;
    });
    const hooks =
      runWebhooks && runId
        ? await createRunWebhooks(ctx, tenant, runId, runWebhooks).catch((err: unknown) => {
            release();
            throw err;
          })
        : undefined;
    // A span of its own (joined to a traceparent header), the parent of the run's spans when traces are on.
    const startRun = () =>
      ctx.agio.start(agent, input, {
        tenant,
        ...settings,
        ...(runId ? { runId } : {}),
        ...(spec ? {} : { tightenOnly: !mayRaise }),
      });
    const attributes = { 'http.request.method': 'POST', 'http.route': '/runs', 'gen_ai.agent.name': agent };
    const run = await withServerSpan('POST /runs', req.headers, attributes, startRun).catch(async (err: Error) => {
      release();
      await hooks?.undo();
      if (err instanceof SessionBusyError)
        throw new HttpError(409, 'session_busy', err.message, { activeRunId: err.activeRunId });
      if (!(err instanceof IdempotencyConflictError)) throw err;
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
    return reply.status(run.created ? 201 : 200).send({
      runId: run.runId,
      links: { self: `/runs/${run.runId}`, events: `/runs/${run.runId}/events` },
      ...(hooks ? { webhooks: hooks.webhooks } : {}),
    });
  });

  apiRoute(app, ctx.tokens, ListRuns, async ({ caller: { tenant }, query }) => {
    try {
      return await ctx.agio.list({
        tenant,
        agent: query.agent,
        status: query.status,
        schedule: query.schedule,
        pageSize: query.limit,
        pageToken: query.pageToken,
      });
    } catch (err) {
      if (err instanceof BadPageTokenError) throw new HttpError(400, 'invalid_request', err.message);
      throw err;
    }
  });

  apiRoute(app, ctx.tokens, GetRun, async ({ caller: { tenant }, params: { id } }) => {
    const status = await ctx.agio.getHandle(id).status({ tenant });
    // A running run's cost so far is its tree's spend in the ledger (no query to the run).
    if (status.status !== 'running') return status;
    const treeSpentUsd = await treeSpend(tenant, status.rootRunId ?? id);
    return treeSpentUsd === undefined ? status : { ...status, cost: { treeSpentUsd } };
  });

  apiRoute(app, ctx.tokens, GetRunState, async ({ caller: { tenant }, params: { id } }) => {
    const run = ctx.agio.getHandle(id);
    const { rootRunId } = await run.describe({ tenant });
    const view = await run.state();
    // The tree's spend so far, nested runs still running included (the run's own usage counts finished ones only).
    const treeSpentUsd = await treeSpend(tenant, rootRunId);
    return view.cost && treeSpentUsd !== undefined ? { ...view, cost: { ...view.cost, treeSpentUsd } } : view;
  });
};
