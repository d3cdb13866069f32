// Completing callback tools from a client (docs/ARCHITECTURE.md, "Callback tools"): by the token the tool's start was
// given (AgioClient.completeCallback), or by tool call id anywhere in a run's tree (RunHandle.completeCallback).
import type { Client } from '@temporalio/client';
import {
  CallbackResult,
  ErrorType,
  decodeCallbackClaims,
  jsonBytes,
  type CallbackAck,
  type CallbackCompletion,
  type WireEvent,
} from '../common';
import { completeCallbackUpdate } from '../common/messages';
import { isNotFound, isUpdateFailed } from './errors';

/** The largest result (UTF-8 bytes of its JSON) a client sends to a run. */
export const MAX_CLIENT_RESULT_BYTES = 1024 * 1024;

/** Why a callback's result was not taken. */
export type CallbackRefusal = 'not_found' | 'already_completed' | 'expired' | 'invalid';

/**
 * A callback result the run did not take: no such callback waits (`not_found`), its result was already taken
 * (`already_completed`), its wait timed out or its run ended (`expired`), or the result is malformed (`invalid`).
 */
export class CallbackRefusedError extends Error {
  override name = 'CallbackRefusedError';
  constructor(
    readonly reason: CallbackRefusal,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where a waiting callback is: the workflow that waits, its callback id and (from a token) its tenant. */
export interface CallbackTarget {
  workflowId: string;
  callbackId: string;
  tenant?: string;
}

/** The target a token names (its signature is not checked here: a client talks to Temporal with its own rights). */
export function callbackTargetOf(token: string): CallbackTarget {
  const claims = decodeCallbackClaims(token);
  if (!claims) throw new CallbackRefusedError('invalid', 'this is not a callback token');
  return { workflowId: claims.w, callbackId: claims.c, tenant: claims.t };
}

/** The latest TOOL_CALLBACK_WAITING of `toolCallId` among `events` (call ids may repeat across turns). */
export async function callbackWaitOf(
  events: AsyncIterable<WireEvent>,
  toolCallId: string,
): Promise<CallbackTarget | undefined> {
  let found: CallbackTarget | undefined;
  for await (const e of events) {
    const data = e.data as { toolCallId?: string; workflowId?: string; callbackId?: string } | undefined;
    if (e.type === 'TOOL_CALLBACK_WAITING' && data?.toolCallId === toolCallId && data.workflowId && data.callbackId)
      found = { workflowId: data.workflowId, callbackId: data.callbackId };
  }
  return found;
}

/** Sends a result to the waiting workflow; CallbackRefusedError says why one was not taken. */
export async function completeCallback(
  client: Client,
  target: CallbackTarget,
  result: CallbackResult,
  via: CallbackCompletion['via'],
): Promise<CallbackAck> {
  const parsed = CallbackResult.safeParse(result);
  if (!parsed.success) throw new CallbackRefusedError('invalid', parsed.error.issues.map((i) => i.message).join('; '));
  // The result goes into the run's history: a bridge takes at most 256 KiB; a client, at most this much.
  const bytes = jsonBytes(parsed.data);
  if (bytes > MAX_CLIENT_RESULT_BYTES)
    throw new CallbackRefusedError(
      'invalid',
      `the result is ${bytes} bytes; at most ${MAX_CLIENT_RESULT_BYTES} are taken`,
    );
  const completion: CallbackCompletion = {
    callbackId: target.callbackId,
    ...(target.tenant !== undefined ? { tenant: target.tenant } : {}),
    ...parsed.data,
    via,
  };
  try {
    return await client.workflow
      .getHandle(target.workflowId)
      .executeUpdate(completeCallbackUpdate, { args: [completion] });
  } catch (err) {
    // A closed run takes no update (Temporal says "not found"): whatever waited there is over.
    if (isNotFound(err))
      throw new CallbackRefusedError('expired', 'this callback is no longer waiting: its run has ended', {
        cause: err,
      });
    const cause = (err as { cause?: { type?: string; message?: string } }).cause;
    const reason = REFUSALS[cause?.type ?? ''];
    if (isUpdateFailed(err) && reason)
      throw new CallbackRefusedError(reason, cause?.message ?? (err as Error).message, { cause: err });
    throw err;
  }
}

const REFUSALS: Record<string, CallbackRefusal> = {
  [ErrorType.CallbackNotFound]: 'not_found',
  [ErrorType.CallbackAlreadyCompleted]: 'already_completed',
  [ErrorType.CallbackExpired]: 'expired',
};
