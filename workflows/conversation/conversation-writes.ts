// Which messages of a run's conversation its next model call must write to the message store: a conversation over
// limits.inlineModelInputBytes is not sent whole (its history would repeat it at every step) nor read back with the
// conversation Query (a Query on a run not in a worker's cache replays the whole run), but kept in the message store,
// each call carrying only the positions that changed since the last call that succeeded.
import { ActivityFailure, ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { ErrorType, type ChatMessage } from '../../common';
import type { StoredConversationInput } from '../../common/contracts/model-call';

/**
 * The patch under which a run keeps a large conversation in the message store. Decided once when the run opens
 * (before any local activity); runs started before it read theirs with the conversation Query.
 */
export const CONVERSATION_STORE_PATCH = 'agio-conversation-store';

/**
 * What this workflow execution knows the message store holds of its conversation. Messages are compared by identity:
 * the conversation replaces a message with a new object (compaction, condensation) and never changes one in place, and
 * a position whose message moved (condensation removes messages) is written again.
 */
export class ConversationWrites {
  /** The message the store holds at each position, as far as a call that succeeded wrote it. */
  private stored: ChatMessage[] = [];
  /** The version of the last write handed to a call (each call has its own, whether or not it succeeds). */
  private version = 0;
  /** The version of the last whole write a call succeeded with: 0 until one did. */
  private base = 0;

  /** The conversation part of the next call's input: the changed positions, under a new version. */
  next(messages: ChatMessage[], tenant: string, attemptsBefore = 0): StoredConversationInput {
    const version = ++this.version;
    const whole = this.base === 0;
    const changed: StoredConversationInput['changed'] = [];
    let open: ChatMessage[] | undefined;
    messages.forEach((message, i) => {
      if (!whole && this.stored[i] === message) open = undefined;
      else if (open) open.push(message);
      else changed.push({ at: i, messages: (open = [message]) });
    });
    const { runId } = workflowInfo();
    const base = whole ? version : this.base;
    return {
      tenant,
      runId,
      version,
      base,
      count: messages.length,
      changed,
      ...(attemptsBefore ? { attemptsBefore } : {}),
    };
  }

  /** A call with `input` succeeded: the store holds what it wrote. */
  accepted(input: StoredConversationInput): void {
    if (input.base === input.version) this.base = input.version;
    for (const { at, messages } of input.changed) messages.forEach((m, k) => (this.stored[at + k] = m));
    this.stored.length = input.count;
  }

  /** The store lacks this run's messages (ConversationNotStored): the next call writes them all. */
  forget(): void {
    this.stored = [];
    this.base = 0;
  }
}

/**
 * When a model call failed because its worker's message store lacks the run's earlier messages: how many attempts
 * before the failing one may have streamed deltas (see StoredConversationInput.attemptsBefore). Else undefined.
 */
export function conversationNotStored(err: unknown): number | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  if (err.cause.type !== ErrorType.ConversationNotStored) return undefined;
  const [attempts] = (err.cause.details ?? []) as unknown[];
  return typeof attempts === 'number' ? attempts : 0;
}
