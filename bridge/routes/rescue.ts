// Rescue (issue 35): POST /runs/:id/retry starts a linked run that continues a failed, cancelled or timed-out run from
// its last completed step; POST /runs/:id/fork starts one from the conversation up to a step, edited. Both take the
// `start` scope, as POST /runs does, and the same bounds: limits and maxTokens no higher than the agent's own, `allow`
// rules only where the bridge accepts them, and the tenant's running-runs quota. The steps are read from the stores.
import { z } from 'zod';
import { MAX_TOKENS_PER_MODEL_CALL, ModelSettings } from '../../common';
import { RunNotFoundError } from '../../client/errors';
import { RescueRefusedError, type RescueRefusal, type RescuedRun, type RetryOptions } from '../../client/run-rescue';
import { apiRoute, defineRoute } from '../api-route';
import { hasScope, type Grant } from '../auth';
import { HttpError, runNotFound } from '../errors';
import { DEFAULT_MAX_RUNNING_RUNS_PER_TENANT, RunningRunsQuota } from '../quotas';
import { refuseLimitRaise, refuseMaxTokensRaise } from '../run-limits';
import { StartRunBody, refuseAllowRules } from '../start-run';
import { RunParams, type BridgeContext, type Routes } from './context';

/** Longest instructions, tool result or user message a fork may bring (characters). */
const MAX_EDIT_CHARS = 256 * 1024;

const ModelName = z.string().regex(/^[\x21-\x7e]{1,128}$/, 'model: 1-128 visible ASCII characters');
const RescueModelSettings = ModelSettings.extend({
  maxTokens: z.number().int().positive().max(MAX_TOKENS_PER_MODEL_CALL).optional(),
}).strict();
/** What a retry or fork may set besides its edits: bounded as POST /runs bounds them. */
const RunSettings = {
  limits: StartRunBody.shape.limits,
  permissions: StartRunBody.shape.permissions,
};

/** POST /runs/:id/retry's body: overrides over what the source ran with. */
export const RetryBody = z
  .object({ ...RunSettings, model: ModelName.optional(), modelSettings: RescueModelSettings.optional() })
  .strict();

/** POST /runs/:id/fork's body: the step, and what the fork changes. */
export const ForkBody = z
  .object({
    step: z.number().int().min(0).max(1_000_000),
    edits: z
      .object({
        model: ModelName.optional(),
        modelSettings: RescueModelSettings.optional(),
        instructions: z.string().max(MAX_EDIT_CHARS).optional(),
        toolResult: z.string().max(MAX_EDIT_CHARS).optional(),
        userMessage: z.string().min(1).max(MAX_EDIT_CHARS).optional(),
      })
      .strict()
      .optional(),
    ...RunSettings,
  })
  .strict();

/** A retry or fork that started. */
export const RescueAnswer = z.object({
  runId: z.string(),
  retriedFrom: z.string().optional(),
  forkedFrom: z.string().optional(),
  step: z.number().optional(),
  copiedSteps: z.number().describe("how many of the source's steps the new run starts from"),
  links: z.object({ self: z.string(), events: z.string() }),
});

const refusals = {
  404: "run_not_found (also for another tenant's run)",
  413: 'seed_too_large: the conversation up to there does not fit in one run input',
  501: 'no_stores: this bridge has no stores configured (the steps are read there)',
  429: "quota_exceeded: the tenant's running runs are at the bridge's cap",
};

/** POST /runs/:id/retry. */
export const PostRunRetry = defineRoute({
  method: 'POST',
  path: '/runs/:id/retry',
  summary: 'Retry a failed, cancelled or timed-out run from its last completed step',
  description:
    'Starts a new root run of the same agent (as the run recorded it) from its conversation, state, workspace and limits, ' +
    'with the overrides given; the model calls already made are not made again. Both runs show the link.',
  tags: ['runs'],
  auth: 'start',
  params: RunParams,
  body: RetryBody,
  responses: {
    201: { description: 'Started', schema: RescueAnswer },
    400: 'invalid_request, unsupported_run (not an LLM agent run), limit_above_agent, permission_override_refused',
    409: 'run_running (cancel it, or fork it), run_completed (fork it), no_steps',
    ...refusals,
  },
});

/** POST /runs/:id/fork. */
export const PostRunFork = defineRoute({
  method: 'POST',
  path: '/runs/:id/fork',
  summary: 'Fork a run at a step, with edits',
  description:
    'Starts a new root run from the conversation before `step` (any status of the source, running included): an ' +
    'assistant step is asked again, a tool step takes `edits.toolResult`, a user step `edits.userMessage`; another ' +
    'model, model settings or instructions apply to the new run. The fork gets its own workspace.',
  tags: ['runs'],
  auth: 'start',
  params: RunParams,
  body: ForkBody,
  responses: {
    201: { description: 'Started', schema: RescueAnswer },
    400: 'invalid_request, step_out_of_range, step_mismatch, unsupported_run, limit_above_agent, permission_override_refused',
    409: 'no_steps',
    ...refusals,
  },
});

const REFUSAL_STATUS: Record<RescueRefusal, number> = {
  run_running: 409,
  run_completed: 409,
  no_steps: 409,
  unsupported_run: 400,
  step_out_of_range: 400,
  step_mismatch: 400,
  seed_too_large: 413,
};

export const rescueRoutes: Routes = (app, ctx) => {
  const running = new RunningRunsQuota(
    (tenant) => ctx.agio.count({ tenant, status: 'running' }).catch(() => 0),
    ctx.opts.maxRunningRunsPerTenant ?? DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  );

  /** Starts a retry or fork within the tenant's quota, with POST /runs' bounds; Agio's refusals as HTTP errors. */
  const rescue = async (
    caller: Grant,
    settings: Pick<RetryOptions, 'limits' | 'permissions' | 'modelSettings'>,
    start: (opts: RetryOptions) => Promise<RescuedRun>,
  ) => {
    const admin = hasScope(caller, 'admin');
    refuseAllowRules(settings.permissions, (ctx.opts.allowPermissionOverrides ?? false) || admin);
    const mayRaise = (ctx.opts.allowLimitRaise ?? false) || admin;
    const check: RetryOptions['check'] = (agent) => {
      refuseLimitRaise(agent, settings.limits, mayRaise);
      refuseMaxTokensRaise(agent, settings.modelSettings?.maxTokens, mayRaise);
    };
    const release = await running.admit(caller.tenant);
    try {
      const run = await start({ tenant: caller.tenant, check });
      return {
        runId: run.runId,
        ...run.origin,
        copiedSteps: run.copiedSteps,
        links: { self: `/runs/${run.runId}`, events: `/runs/${run.runId}/events` },
      };
    } catch (err) {
      release();
      throw httpErrorOf(err);
    }
  };

  apiRoute(app, ctx.tokens, PostRunRetry, async ({ caller, params: { id }, body, reply }) => {
    const answer = await rescue(caller, body, (opts) => rescueOf(ctx).retry(id, { ...body, ...opts }));
    return reply.status(201).send(answer);
  });

  apiRoute(app, ctx.tokens, PostRunFork, async ({ caller, params: { id }, body, reply }) => {
    const { step, edits, limits, permissions } = body;
    const settings = { limits, permissions, modelSettings: edits?.modelSettings };
    const answer = await rescue(caller, settings, (opts) =>
      rescueOf(ctx).fork(id, { step, ...edits, limits, permissions, ...opts }),
    );
    return reply.status(201).send(answer);
  });
};

/** The client's retries and forks over the bridge's stores (501 without). */
function rescueOf(ctx: BridgeContext) {
  if (!ctx.opts.stores)
    throw new HttpError(
      501,
      'no_stores',
      'this bridge has no stores configured (set MONGODB_URI): steps are read there',
    );
  return ctx.agio.rescue(ctx.opts.stores.sessions);
}

/** Agio's refusals as the bridge answers them. */
function httpErrorOf(err: unknown): unknown {
  if (err instanceof RunNotFoundError) return runNotFound(err.runId);
  if (err instanceof RescueRefusedError) return new HttpError(REFUSAL_STATUS[err.reason], err.reason, err.message);
  return err;
}
