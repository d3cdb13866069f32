// An agent run's conversation: its steps (what it stores and returns) and the messages the model sees (the steps'
// messages, with a session's earlier conversation after the instructions), kept in step with each other.
import { setHandler } from '@temporalio/workflow';
import { jsonBytes, stepToMessage, type ChatMessage, type Step } from '../../common';
import { conversationQuery } from '../../common/messages';
import type { CompactionTarget } from './compaction';
import type { ConversationWrites } from './conversation-writes';

/** The steps and messages of one agent run; answers the conversation query. */
export class Conversation {
  readonly steps: Step[] = [];
  readonly messages: ChatMessage[] = [];
  /** The message each step put in the conversation (a step handed to a model call names it instead of repeating it). */
  private readonly messageOf = new WeakMap<Step, ChatMessage>();

  /**
   * @param writes what the message store holds of the conversation, for runs that keep a large one there (see
   *   CONVERSATION_STORE_PATCH); without it a large conversation is read with the conversation Query, which stays
   *   answered for calls of runs started before.
   */
  constructor(readonly writes?: ConversationWrites) {
    setHandler(conversationQuery, ({ count }) => this.messages.slice(0, count));
  }

  /** Adds a step and its message (a step condensed into a summary has none, see condensation.ts). */
  add(step: Step): void {
    this.steps.push(step);
    if (typeof step.metadata?.condensedInto === 'number') return;
    const message = stepToMessage(step);
    this.messageOf.set(step, message);
    this.messages.push(message);
  }

  /** The message a step put in the conversation. */
  messageFor(step: Step): ChatMessage | undefined {
    return this.messageOf.get(step);
  }

  /**
   * Puts a session's earlier conversation after the instructions and before this run's input (it is not this run's
   * steps).
   */
  insertHistory(history: ChatMessage[]): void {
    this.messages.splice(this.messages[0]?.role === 'system' ? 1 : 0, 0, ...history);
  }

  /**
   * Replaces steps `from..to` (exclusive) with `summary`: its message takes the place of the first one's, the others'
   * messages leave the conversation, and those steps stay as small markers (`condensedInto`), so step indexes hold.
   */
  condense(from: number, to: number, summary: Step): void {
    const first = this.messages.indexOf(this.messageOf.get(this.steps[from])!);
    const message = stepToMessage(summary);
    for (let i = from; i < to; i++) {
      const old = this.messageOf.get(this.steps[i]);
      if (old) this.messages.splice(this.messages.indexOf(old), 1);
      if (i > from) {
        const { id, runId, index, role } = this.steps[i];
        this.steps[i] = { id, runId, index, role, content: null, metadata: { condensedInto: from } };
      }
    }
    this.messages.splice(first < 0 ? this.messages.length : first, 0, message);
    this.messageOf.set(summary, message);
    this.steps[from] = summary;
  }

  /**
   * What compaction works on: it replaces a step of an earlier turn with its compacted copy, in the steps and the
   * conversation alike. `written`: how many steps are stored (only those may be compacted).
   */
  compactionTarget(written: () => number): CompactionTarget {
    return {
      steps: this.steps,
      bytes: () => jsonBytes(this.messages),
      compactable: () => Math.min(written(), this.steps.map((s) => s.role).lastIndexOf('assistant')),
      replace: (index, step) => {
        const message = stepToMessage(step);
        this.messages[this.messages.indexOf(this.messageOf.get(this.steps[index])!)] = message;
        this.messageOf.set(step, message);
        this.steps[index] = step;
      },
    };
  }
}
