// POST /runs/:id/messages: adds a user message to a running agent run, root or nested (the URL names the run that
// reads it). Scope `start`: a message is new input to the tenant's run, which a token that may start runs may give.
import { z } from 'zod';
import { apiRoute, defineRoute } from '../api-route';
import { MessageRefusedError } from '../../client/run-messages';
import { RunClosedError } from '../../client/errors';
import { HttpError, runNotRunning } from '../errors';
import { RunParams, type Routes } from './context';

/** The body of POST /runs/:id/messages. */
export const MessageBody = z.object({
  text: z.string().min(1).max(100_000),
  /** `enqueue` (default): read before the run's next model call; `interrupt`: cancel the model call in flight too. */
  mode: z.enum(['enqueue', 'interrupt']).default('enqueue'),
  /** The caller's id for the message: the same id again is answered (`duplicate: true`), never queued twice. */
  messageId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'messageId: 1-200 characters of A-Z a-z 0-9 . _ : -')
    .optional(),
});

/** What POST /runs/:id/messages answers (202: accepted by the run, read at its next turn). */
export const MessageAccepted = z.object({
  runId: z.string(),
  messageId: z.string(),
  mode: z.enum(['enqueue', 'interrupt']),
  duplicate: z.boolean().optional(),
  interrupted: z.boolean().optional(),
});

/** POST /runs/:id/messages. */
export const PostRunMessage = defineRoute({
  method: 'POST',
  path: '/runs/:id/messages',
  summary: 'Add a user message to a running agent run (read at its next turn, or interrupting its model call)',
  tags: ['control'],
  auth: 'start',
  params: RunParams,
  body: MessageBody,
  responses: {
    202: MessageAccepted,
    404: 'run_not_found: no such run in your tenant',
    409: 'run_not_running: the run has ended; message_refused: the run is closing (it has its final answer), is a workflow agent, or started before runs took messages',
  },
});

export const messageRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, PostRunMessage, async ({ reply, caller, params, body }) => {
    const { id } = params;
    const run = ctx.agio.getHandle(id);
    const { status } = await run.describe({ tenant: caller.tenant });
    if (status !== 'running') throw runNotRunning(id, status);
    const opts = { mode: body.mode, by: caller.identity, ...(body.messageId ? { messageId: body.messageId } : {}) };
    try {
      const accepted = await run.message(body.text, opts);
      return reply.status(202).send(MessageAccepted.parse({ runId: id, ...accepted }));
    } catch (err) {
      if (err instanceof MessageRefusedError) throw new HttpError(409, 'message_refused', err.message);
      if (err instanceof RunClosedError) throw new HttpError(409, 'run_not_running', err.message);
      throw err;
    }
  });
};
