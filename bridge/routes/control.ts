// Steering a run: POST /runs/:id/pause and /resume (answer once the run is parked, or 202), approve and deny a tool
// call (through the root, whichever run of the tree the URL names), and cancel.
import { z } from 'zod';
import { CostUsdRequest } from '../../common';
import { ErrorType } from '../../common/errors';
import { DecisionRejectedError, RunClosedError, RunRefusedError, UnknownToolCallError } from '../../client/errors';
import { type Grant } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { CancelAnswer, ControlPendingAnswer, ControlStateAnswer, DecisionAnswer } from '../api-schemas';
import { HttpError, runNotRunning } from '../errors';
import { DecisionBinding, boundTo, refusedBinding } from './approvals';
import { raiseRunBudget } from './budgets';
import { RunParams, type Routes } from './context';

const DecisionBody = z.object({
  message: z.string().max(4000).optional(),
  remember: z.boolean().optional(),
  by: z.string().max(200).optional(),
  /** The call's binding as shown (GET /approvals): refused with 409 stale_binding when the call waiting has another. */
  binding: DecisionBinding.optional(),
});
const ToolCallParams = RunParams.extend({
  callId: z.string().regex(/^[A-Za-z0-9._:-]{1,256}$/, 'malformed tool call id'),
});
const ControlBody = z.object({
  reason: z.string().max(1000).optional(),
  by: z.string().max(200).optional(),
  /** Resume only: the run tree's new cost budget, set before the resume (see routes/budgets.ts). */
  maxCostUsd: CostUsdRequest.optional(),
});

/**
 * Who acts: the token's identity. A body `by` naming someone else is refused (403), so a decision or a pause is never
 * recorded under a name its sender does not hold; the same name is accepted, for callers that always sent one.
 */
function actorOf(caller: Grant, by: string | undefined): string {
  if (by !== undefined && by !== caller.identity)
    throw new HttpError(
      403,
      'forbidden',
      `"by" is your token's identity ("${caller.identity}"): leave it out, the bridge records it for you`,
      { by: caller.identity },
    );
  return caller.identity;
}

/** A pause refused by the run's validator (it is paused, or a pause is pending) is a 409; anything else is rethrown. */
function refusedPause(err: unknown): never {
  if (err instanceof RunRefusedError && err.type === ErrorType.AlreadyPaused && err.cause)
    throw new HttpError(409, 'already_paused', err.cause.message);
  // The run ended between the bridge's look and the pause.
  if (err instanceof RunClosedError) throw new HttpError(409, 'run_not_running', err.message);
  throw err;
}

const controlRoute = (action: 'pause' | 'resume') =>
  defineRoute({
    method: 'POST',
    path: `/runs/:id/${action}`,
    summary:
      action === 'pause'
        ? 'Pause a run at its next safe point (answers once it is parked, or 202)'
        : 'Resume a paused run (maxCostUsd: raise its tree budget first)',
    tags: ['control'],
    auth: 'control',
    params: RunParams,
    body: ControlBody,
    responses: {
      200: { description: "Parked: the run's control state", schema: ControlStateAnswer },
      202: { description: 'Asked; the run has not parked within the wait', schema: ControlPendingAnswer },
      403: 'forbidden: the token lacks the "control" scope, or "by" names another identity',
      404: 'run_not_found',
      409: 'run_not_running, or already_paused (a pause while paused or pending)',
    },
  });
/** POST /runs/:id/pause. */
export const PauseRun = controlRoute('pause');
/** POST /runs/:id/resume. */
export const ResumeRun = controlRoute('resume');

const decisionRoute = (decision: 'approve' | 'deny') =>
  defineRoute({
    method: 'POST',
    path: `/runs/:id/tool-calls/:callId/${decision}`,
    summary: `${decision === 'approve' ? 'Approve' : 'Deny'} a tool call waiting for a decision, anywhere in the run's tree`,
    tags: ['control'],
    auth: 'decide',
    params: ToolCallParams,
    body: DecisionBody,
    responses: {
      200: DecisionAnswer,
      403: 'forbidden: the token lacks the "decide" scope, "by" names another identity, or the call was escalated to a role the token lacks',
      404: 'run_not_found or tool_call_not_found',
      409: "decision_rejected: already decided, or the call no longer waits; stale_binding: the binding is not the waiting call's",
    },
  });
/** POST /runs/:id/tool-calls/:callId/approve. */
export const ApproveToolCall = decisionRoute('approve');
/** POST /runs/:id/tool-calls/:callId/deny. */
export const DenyToolCall = decisionRoute('deny');

/** POST /runs/:id/cancel. */
export const CancelRun = defineRoute({
  method: 'POST',
  path: '/runs/:id/cancel',
  summary: 'Cancel a running run (its tree ends cancelled)',
  tags: ['control'],
  auth: 'control',
  params: RunParams,
  responses: { 202: CancelAnswer, 404: 'run_not_found', 409: 'run_not_running' },
});

export const controlRoutes: Routes = (app, ctx) => {
  for (const [action, route] of [
    ['pause', PauseRun],
    ['resume', ResumeRun],
  ] as const) {
    apiRoute(app, ctx.tokens, route, async ({ reply, caller, params: { id }, body }) => {
      const { tenant } = caller;
      const by = actorOf(caller, body.by);
      const handle = ctx.agio.getHandle(id);
      const { status } = await handle.describe({ tenant });
      if (status !== 'running') throw runNotRunning(id, status);
      if (body.maxCostUsd !== undefined && action === 'resume') await raiseRunBudget(ctx, caller, id, body.maxCostUsd);
      const request = { by, ...(body.reason ? { reason: body.reason } : {}) };
      // The update returns once the run is parked; a long activity may delay that, so answer 202 after a while.
      const done = action === 'pause' ? handle.pause(request) : handle.resume(request);
      const timeout = new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), ctx.opts.controlWaitMs ?? 10_000).unref(),
      );
      const state = await Promise.race([done.catch(refusedPause), timeout]);
      return reply
        .status(state ? 200 : 202)
        .send(state ?? { paused: action === 'pause', parked: false, pending: true });
    });
  }

  for (const [decision, route] of [
    ['approve', ApproveToolCall],
    ['deny', DenyToolCall],
  ] as const) {
    apiRoute(app, ctx.tokens, route, async ({ caller, params: { id, callId }, body }) => {
      const { tenant } = caller;
      const by = actorOf(caller, body.by);
      // The owner of the call is found in the root's event log, whichever run of the tree the URL names.
      const { rootRunId } = await ctx.agio.getHandle(id).describe({ tenant });
      const run = ctx.agio.getHandle(rootRunId);
      try {
        return await (decision === 'approve'
          ? run.approve(callId, { remember: body.remember, by, ...boundTo(caller, body.binding) })
          : run.deny(callId, { message: body.message, by, ...boundTo(caller, body.binding) }));
      } catch (err) {
        refusedBinding(err);
        if (err instanceof UnknownToolCallError) throw new HttpError(404, 'tool_call_not_found', err.message);
        if (err instanceof RunRefusedError)
          throw new HttpError(409, 'decision_rejected', err.cause?.message ?? err.message);
        if (err instanceof DecisionRejectedError) throw new HttpError(409, 'decision_rejected', err.message);
        throw err;
      }
    });
  }

  apiRoute(app, ctx.tokens, CancelRun, async ({ req, reply, caller: { tenant, identity }, params: { id } }) => {
    const run = ctx.agio.getHandle(id);
    const { status } = await run.describe({ tenant });
    if (status !== 'running') throw runNotRunning(id, status);
    // Temporal's cancel carries no reason: the bridge's log says who asked.
    req.log.info({ runId: id, by: identity }, 'cancel requested');
    await run.cancel();
    return reply.status(202).send({ runId: id, cancelRequested: true });
  });
};
