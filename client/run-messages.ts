// Sending a user message to a running agent run (RunHandle.message): the `agio.message` update under an update id
// derived from the message id, so a repeat is answered by Temporal (and by the run across continue-as-new) instead of
// queued twice, and the run's refusal as a MessageRefusedError.
import type { WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { ErrorType } from '../common';
import { userMessageUpdate, type UserMessageAccepted } from '../common/messages';
import { isUpdateFailed } from './errors';

/** Options of RunHandle.message. */
export interface MessageOptions {
  /** `enqueue` (default): read before the run's next model call; `interrupt`: cancel the model call in flight too. */
  mode?: 'enqueue' | 'interrupt';
  /** The caller's id of the message: the same id sent again is answered with `duplicate: true`, never queued twice. */
  messageId?: string;
  /** Who sends it (the bridge sets its token's identity). */
  by?: string;
}

/** The run refused the message: it is closing, it is a workflow agent, or the message is malformed. */
export class MessageRefusedError extends Error {
  override name = 'MessageRefusedError';
}

/** Sends the message; resolves once the run has accepted it (not when the model reads it). */
export async function sendMessage(
  handle: WorkflowHandle,
  runId: string,
  text: string,
  opts: MessageOptions = {},
): Promise<UserMessageAccepted> {
  const messageId = opts.messageId ?? `msg-${randomUUID()}`;
  const request = { messageId, text, mode: opts.mode ?? 'enqueue', ...(opts.by ? { by: opts.by } : {}) };
  try {
    return await handle.executeUpdate(userMessageUpdate, { args: [request], updateId: `agio.message:${messageId}` });
  } catch (err) {
    const e = err as Error & { cause?: Error & { type?: string } };
    if (!isUpdateFailed(err)) throw err;
    if (e.cause?.type === ErrorType.MessageRefused) throw new MessageRefusedError(e.cause.message, { cause: err });
    // No handler: a workflow agent (loop, sequential, parallel), whose sub-agents are the runs that take messages.
    if (/no registered handler/i.test(e.cause?.message ?? ''))
      throw new MessageRefusedError(
        `run "${runId}" takes no messages: it is a workflow agent (loop, sequential or parallel); send the message to ` +
          'the agent run of it that is running',
        { cause: err },
      );
    throw err;
  }
}
