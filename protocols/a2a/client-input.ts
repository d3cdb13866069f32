// What a client's message says, checked (it is untrusted): the text a run starts or continues with, and a decision on
// a tool call the task waits for (input-required).
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import type { PendingApproval } from '../../common/approval-inbox';
import { TASK_ID } from './run-tasks';

/** Most parts one message may have. */
const MAX_PARTS = 32;
/** A context id is an Agio session id. */
const CONTEXT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Refuses a message the server will not take: no parts, files, malformed ids. */
export function checkMessage(message: Message | undefined): Message {
  if (!message) throw new RequestMalformedError('message is required');
  if (!message.messageId || message.messageId.length > 256)
    throw new RequestMalformedError('message.messageId: 1-256 characters');
  if (!message.parts?.length || message.parts.length > MAX_PARTS)
    throw new RequestMalformedError(`message.parts: 1-${MAX_PARTS} text or data parts`);
  for (const part of message.parts) {
    const kind = part.content?.$case;
    if (kind !== 'text' && kind !== 'data')
      throw new RequestMalformedError(
        `message.parts: only text and data parts are taken, not ${kind ?? 'empty'} parts`,
      );
  }
  if (message.contextId && !CONTEXT_ID.test(message.contextId))
    throw new RequestMalformedError('message.contextId: 1-128 letters, digits, . _ : - (it names an Agio session)');
  if (message.taskId && !TASK_ID.test(message.taskId))
    throw new RequestMalformedError('message.taskId: not a task of this agent');
  if (!inputOf(message).trim()) throw new RequestMalformedError('message: its parts hold no text');
  return message;
}

/** The message as a run's input: text parts as they are, data parts as JSON, one after another. */
export function inputOf(message: Message): string {
  return message.parts
    .map((p) =>
      p.content?.$case === 'text'
        ? p.content.value
        : p.content?.$case === 'data'
          ? JSON.stringify(p.content.value)
          : '',
    )
    .filter(Boolean)
    .join('\n\n');
}

const APPROVE = new Set(['approve', 'approved', 'yes', 'y', 'ok']);
const DENY = new Set(['deny', 'denied', 'no', 'n', 'reject']);

/** A decision as a data part states it. */
const DecisionData = z
  .object({
    decision: z.enum(['approve', 'deny']),
    toolCallId: z.string().min(1).max(256).optional(),
    message: z.string().max(4096).optional(),
  })
  .strict();

/** A decision on one waiting call. */
export interface Decision {
  call: PendingApproval;
  decision: 'approve' | 'deny';
  message?: string;
}

/** The decision a message sends on the calls a task waits for; refuses one it cannot read or place. */
export function decisionOf(message: Message, pending: PendingApproval[]): Decision {
  let stated: z.infer<typeof DecisionData> | undefined;
  for (const part of message.parts) {
    if (part.content?.$case === 'data') {
      const parsed = DecisionData.safeParse(part.content.value);
      if (!parsed.success) throw new RequestMalformedError(`decision: ${z.prettifyError(parsed.error)}`);
      stated = parsed.data;
    } else if (part.content?.$case === 'text') {
      const word = part.content.value.trim().toLowerCase();
      if (APPROVE.has(word)) stated ??= { decision: 'approve' };
      else if (DENY.has(word)) stated ??= { decision: 'deny' };
    }
  }
  if (!stated)
    throw new RequestMalformedError(
      'the task waits for an approval: send "approve" or "deny", or a data part {"decision", "toolCallId"?, "message"?}',
    );
  const call = stated.toolCallId ? pending.find((p) => p.toolCallId === stated.toolCallId) : pending[0];
  if (!call) throw new RequestMalformedError(`no call "${stated.toolCallId}" waits for a decision`);
  if (!stated.toolCallId && pending.length > 1)
    throw new RequestMalformedError(
      `${pending.length} calls wait (${pending.map((p) => p.toolCallId).join(', ')}): name one with toolCallId`,
    );
  return { call, decision: stated.decision, ...(stated.message ? { message: stated.message } : {}) };
}
