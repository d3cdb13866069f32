// Cost budgets over HTTP: POST /runs/:id/budget raises a run tree's budget (limits.maxCostUsd; control scope, sent to
// the tree's root, which hands it down and resumes the runs paused for it), GET and POST /tenants/:tenant/budget read
// and set a tenant's daily budget (admin sets; the tenant's own tokens read theirs).
import { z } from 'zod';
import { BudgetRaiseRequest, TenantBudgetRequest } from '../../common';
import { utcDay } from '../../stores';
import { forbidden, hasScope, type Grant } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { RunBudgetAnswer, TenantBudgetAnswer, TenantBudgetSetAnswer } from '../api-schemas';
import { HttpError, runNotRunning } from '../errors';
import { refuseLimitRaise } from '../run-limits';
import { RunParams, type BridgeContext, type Routes } from './context';

const TenantParams = z.object({ tenant: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'malformed tenant') });
/** How many of a tenant's running root runs a raise of its daily budget nudges at most. */
const MAX_NUDGED_RUNS = 1000;

/**
 * Sets the budget of the tree `id` belongs to (sent to its root, which hands it down and resumes the runs paused for
 * it). Above the agent's own maxCostUsd only as an operator may raise any limit (admin, or AGIO_ALLOW_LIMIT_RAISE).
 */
export async function raiseRunBudget(ctx: BridgeContext, caller: Grant, id: string, maxCostUsd: number) {
  const { rootRunId } = await ctx.agio.getHandle(id).describe({ tenant: caller.tenant });
  const root = await ctx.agio.getHandle(rootRunId).describe({ tenant: caller.tenant });
  if (root.status !== 'running') throw runNotRunning(rootRunId, root.status);
  const spec = ctx.agio.agents.find(root.agent ?? '');
  if (spec) refuseLimitRaise(spec, { maxCostUsd }, (ctx.opts.allowLimitRaise ?? false) || hasScope(caller, 'admin'));
  await ctx.agio.getHandle(rootRunId).raiseBudget({ maxCostUsd, by: caller.identity });
  return { runId: rootRunId, maxCostUsd };
}

/** POST /runs/:id/budget. */
export const RaiseRunBudget = defineRoute({
  method: 'POST',
  path: '/runs/:id/budget',
  summary: "Set the cost budget of the run's tree (sent to its root; runs paused for it resume)",
  tags: ['budgets'],
  auth: 'control',
  params: RunParams,
  body: BudgetRaiseRequest,
  responses: {
    200: RunBudgetAnswer,
    400: "invalid_request, or limit_above_agent (above the agent's own without admin)",
    404: 'run_not_found',
    409: 'run_not_running: the root has ended',
  },
});

const noStores = 'no_stores: this bridge has no stores configured (MONGODB_URI)';

/** GET /tenants/:tenant/budget. */
export const GetTenantBudget = defineRoute({
  method: 'GET',
  path: '/tenants/:tenant/budget',
  summary: "A tenant's daily budget and today's spend (its own tokens, or admin)",
  tags: ['budgets'],
  auth: 'read',
  params: TenantParams,
  responses: { 200: TenantBudgetAnswer, 403: "forbidden: another tenant's budget needs admin", 501: noStores },
});

/** POST /tenants/:tenant/budget. */
export const SetTenantBudget = defineRoute({
  method: 'POST',
  path: '/tenants/:tenant/budget',
  summary: "Set or clear (dailyUsd: null) a tenant's daily budget; its runs paused for it ask again",
  tags: ['budgets'],
  auth: 'admin',
  params: TenantParams,
  body: TenantBudgetRequest,
  responses: { 200: TenantBudgetSetAnswer, 501: noStores },
});

export const budgetRoutes: Routes = (app, ctx) => {
  const stores = () => {
    if (!ctx.opts.stores)
      throw new HttpError(501, 'no_stores', 'this bridge has no stores configured (set MONGODB_URI)');
    return ctx.opts.stores;
  };

  apiRoute(app, ctx.tokens, RaiseRunBudget, async ({ caller, params: { id }, body: { maxCostUsd } }) => {
    // The budget is the tree's: a raise naming a nested run goes to its root, which hands it down.
    return raiseRunBudget(ctx, caller, id, maxCostUsd);
  });

  apiRoute(app, ctx.tokens, GetTenantBudget, async ({ caller, params: { tenant } }) => {
    if (tenant !== caller.tenant && !hasScope(caller, 'admin')) throw forbidden('admin', "another tenant's budget");
    const day = utcDay(Date.now());
    const [dailyUsd, spentUsd] = await Promise.all([
      stores().spend.tenantBudget(tenant),
      stores().spend.tenantSpend(tenant, day),
    ]);
    return { tenant, day, spentUsd, ...(dailyUsd !== undefined ? { dailyUsd } : {}) };
  });

  apiRoute(app, ctx.tokens, SetTenantBudget, async ({ caller, params: { tenant }, body: { dailyUsd } }) => {
    await stores().spend.setTenantBudget(tenant, dailyUsd ?? undefined);
    // Runs paused for the tenant's budget ask again (each root hands the nudge down its tree).
    const { runs } = await ctx.agio.list({ tenant, status: 'running', pageSize: MAX_NUDGED_RUNS });
    const nudged = await Promise.all(
      runs.map((run) =>
        ctx.agio
          .getHandle(run.runId)
          .raiseBudget({ by: caller.identity })
          .then(
            () => 1,
            () => 0, // ended meanwhile
          ),
      ),
    );
    return { tenant, ...(dailyUsd !== null ? { dailyUsd } : {}), nudgedRuns: nudged.reduce((a, b) => a + b, 0) };
  });
};
