// Steering a run: POST /runs/:id/pause and /resume (answer once the run is parked, or 202), approve and deny a tool
// call (through the root, whichever run of the tree the URL names), and cancel.
import { z } from 'zod';
import { CostUsdRequest } from '../../common';
import { ErrorType } from '../../common/errors';
import { callerOf, type Grant } from '../auth';
import { HttpError } from '../errors';
import { describeRun, rootRunIdOf } from '../runs';
import { raiseRunBudget } from './budgets';
import { RunParams, type Routes } from './context';

const DecisionBody = z.object({
  message: z.string().max(4000).optional(),
  remember: z.boolean().optional(),
  by: z.string().max(200).optional(),
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
  const e = err as Error & { cause?: Error & { type?: string } };
  if (e.name === 'WorkflowUpdateFailedError' && e.cause?.type === ErrorType.AlreadyPaused)
    throw new HttpError(409, 'already_paused', e.cause.message);
  // The run ended between the bridge's look and the pause.
  if (e.name === 'RunClosedError') throw new HttpError(409, 'run_not_running', e.message);
  throw err;
}

export const controlRoutes: Routes = (app, ctx) => {
  for (const action of ['pause', 'resume'] as const) {
    app.post(`/runs/:id/${action}`, async (req, reply) => {
      const caller = callerOf(req, ctx.tokens, 'control');
      const { tenant } = caller;
      const { id } = RunParams.parse(req.params);
      const body = ControlBody.parse(req.body ?? {});
      const by = actorOf(caller, body.by);
      const description = await describeRun(ctx.agio.temporal, tenant, id);
      if (description.status.name !== 'RUNNING')
        throw new HttpError(409, 'run_not_running', `run "${id}" is ${description.status.name.toLowerCase()}`);
      if (body.maxCostUsd !== undefined && action === 'resume') await raiseRunBudget(ctx, caller, id, body.maxCostUsd);
      const request = { by, ...(body.reason ? { reason: body.reason } : {}) };
      const handle = ctx.agio.getHandle(id);
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

  for (const decision of ['approve', 'deny'] as const) {
    app.post(`/runs/:id/tool-calls/:callId/${decision}`, async (req) => {
      const caller = callerOf(req, ctx.tokens, 'decide');
      const { tenant } = caller;
      const { id, callId } = ToolCallParams.parse(req.params);
      const body = DecisionBody.parse(req.body ?? {});
      const by = actorOf(caller, body.by);
      // The owner of the call is found in the root's event log, whichever run of the tree the URL names.
      const run = ctx.agio.getHandle(rootRunIdOf(await describeRun(ctx.agio.temporal, tenant, id), id));
      try {
        return await (decision === 'approve'
          ? run.approve(callId, { remember: body.remember, by })
          : run.deny(callId, { message: body.message, by }));
      } catch (err) {
        const e = err as Error & { cause?: Error };
        if (e.name === 'UnknownToolCallError') throw new HttpError(404, 'tool_call_not_found', e.message);
        if (e.name === 'WorkflowUpdateFailedError')
          throw new HttpError(409, 'decision_rejected', e.cause?.message ?? e.message);
        if (e.name === 'DecisionRejectedError') throw new HttpError(409, 'decision_rejected', e.message);
        throw err;
      }
    });
  }

  app.post('/runs/:id/cancel', async (req, reply) => {
    const { tenant, identity } = callerOf(req, ctx.tokens, 'control');
    const { id } = RunParams.parse(req.params);
    const description = await describeRun(ctx.agio.temporal, tenant, id);
    if (description.status.name !== 'RUNNING')
      throw new HttpError(409, 'run_not_running', `run "${id}" is ${description.status.name.toLowerCase()}`);
    // Temporal's cancel carries no reason: the bridge's log says who asked.
    req.log.info({ runId: id, by: identity }, 'cancel requested');
    await ctx.agio.getHandle(id).cancel();
    return reply.status(202).send({ runId: id, cancelRequested: true });
  });
};
