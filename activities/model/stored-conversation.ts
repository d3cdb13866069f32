// How callModel gets a conversation too large to travel in its input (limits.inlineModelInputBytes): the input
// carries only the messages that changed since the run's previous call, the call writes them to the message store
// and reads the whole conversation back from there. Runs started before this read it with the conversation Query.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, type ChatMessage } from '../../common';
import type { MessageStore } from '../../stores';
import type { StoredConversationInput } from '../../common/contracts/model-call';

/**
 * Writes the changed messages and reads the whole conversation back. Every attempt of a call writes the same version
 * (stored once) and reads the same conversation: the run makes no other call meanwhile. A store without every
 * message (a worker's memory stores lost with a restart, or not shared) fails the call with ConversationNotStored,
 * not retried: the run then writes its whole conversation.
 */
export async function storedConversation(store: MessageStore, input: StoredConversationInput): Promise<ChatMessage[]> {
  const { tenant, runId, version, base, count, changed } = input;
  const writes = changed.flatMap(({ at, messages }) => messages.map((message, k) => ({ index: at + k, message })));
  await store.put(tenant, runId, version, writes);
  const stored = await store.read(tenant, runId, count);
  const held = stored.filter((m, i) => m.index === i && m.version >= base).length;
  if (held < count)
    throw ApplicationFailure.create({
      type: ErrorType.ConversationNotStored,
      message: `the message store of this worker holds ${held} of the ${count} messages of run ${runId} at version ${base} or newer (workers must share their stores)`,
      nonRetryable: true,
      // The attempts before this one may have streamed deltas (see attemptsBefore).
      details: [(input.attemptsBefore ?? 0) + Context.current().info.attempt - 1],
    });
  return stored.map((m) => m.message);
}

/** callModel taking its conversation from the message store when its input says so (see {@link storedConversation}). */
export function readingStoredConversation<I extends { messages?: ChatMessage[]; stored?: StoredConversationInput }, O>(
  activity: (input: I) => Promise<O>,
  store: MessageStore,
): (input: I) => Promise<O> {
  return async (input) =>
    input.stored && !input.messages
      ? activity({ ...input, messages: await storedConversation(store, input.stored) })
      : activity(input);
}

/** A step's sink, as far as its attempt numbering goes (model.ts's StepStreamSink). */
interface AttemptSink {
  begin(info: { attempt: number }): Promise<void>;
}

/** Deltas of a call that replaces one whose worker lacked the stored conversation: numbered after its attempts. */
export function numberedAfterEarlierCalls<I extends { stored?: StoredConversationInput }, S extends AttemptSink>(
  factory: (input: I) => S,
): (input: I) => S {
  return (input) => {
    const sink = factory(input);
    const before = input.stored?.attemptsBefore ?? 0;
    return before ? { ...sink, begin: (info) => sink.begin({ attempt: info.attempt + before }) } : sink;
  };
}
