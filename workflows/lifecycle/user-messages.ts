// Messages a user adds to a running agent run (POST /runs/:id/messages): the `agio.message` update, whose synchronous
// validator tells the caller at once whether the message is taken; the queue the loop reads before its next model call;
// and an interrupt that cancels the model call in flight so that it is asked again with the message.
import { ApplicationFailure, CancellationScope, isCancellation, setHandler } from '@temporalio/workflow';
import { ErrorType } from '../../common/errors';
import { userMessageUpdate, type UserMessageRequest, type UserMessageAccepted } from '../../common/messages';
import type { Emitter } from '../events/emitter';

/**
 * The patch under which an agent run takes user messages (runs started before it refuse them with MessageRefused).
 * Asked when the run opens; a run that never gets a message behaves as before.
 */
export const USER_MESSAGES_PATCH = 'agio-user-messages';

/** How many accepted message ids continue-as-new carries (a client repeating an older id is long gone). */
const CARRIED_IDS = 500;
/** Longest message text (characters). */
export const MAX_USER_MESSAGE_CHARS = 100_000;
/**
 * The attempt STEP_RETRY names for an interrupted model call: above any real attempt, so readers drop every delta the
 * cancelled call sent (it may send a few more before its next heartbeat learns of the cancel).
 */
export const INTERRUPTED_ATTEMPT = 1_000_000;

/** A message accepted and not yet in the conversation. */
export type QueuedUserMessage = Required<Pick<UserMessageRequest, 'messageId' | 'text' | 'mode'>> & { by?: string };

/** What continue-as-new carries: the queue, and the latest accepted ids (a repeat stays a repeat). */
export interface UserMessagesCarried {
  queued: QueuedUserMessage[];
  seen: string[];
}

/** The user messages of one agent run. */
export class UserMessages {
  private readonly queued: QueuedUserMessage[];
  private readonly seen: string[];
  private closing = false;
  /** The model call in flight, cancelled by an interrupt. */
  private call?: CancellationScope;
  private interrupted = false;

  constructor(
    private readonly events: Emitter,
    /** False for runs started before {@link USER_MESSAGES_PATCH}: every message is refused. */
    private readonly enabled: boolean,
    carried?: UserMessagesCarried,
  ) {
    this.queued = [...(carried?.queued ?? [])];
    this.seen = [...(carried?.seen ?? [])];
    setHandler(userMessageUpdate, (req) => this.accept(req), { validator: (req) => this.validate(req) });
  }

  /** Ids of the messages waiting to be read, oldest first (for the state query). */
  queuedIds(): string[] {
    return this.queued.map((m) => m.messageId);
  }

  /** Messages waiting to be read, oldest first; each is taken once. */
  take(): QueuedUserMessage | undefined {
    return this.queued.shift();
  }

  /**
   * The run has its final answer: true when messages wait (the loop asks the model again instead of ending), else the
   * run is closing and later messages are refused. Synchronous, so no message slips in between the look and the close.
   */
  keepsRunning(): boolean {
    if (this.queued.length) return true;
    this.close();
    return false;
  }

  /** The run is ending (any way): messages are refused from now on. */
  close(): void {
    this.closing = true;
  }

  /**
   * Runs a model call that an interrupt may cancel: its output, or undefined when a message interrupted it (the
   * caller takes the message and asks again).
   */
  async interruptible<T>(call: () => Promise<T>): Promise<{ out: T } | undefined> {
    if (!this.enabled) return { out: await call() };
    // An interrupt that came while the call was being prepared (compaction): ask again with it at once.
    if (this.queued.some((m) => m.mode === 'interrupt')) return undefined;
    const scope = new CancellationScope();
    this.call = scope;
    this.interrupted = false;
    try {
      return { out: await scope.run(call) };
    } catch (err) {
      if (this.interrupted && isCancellation(err)) return undefined;
      throw err;
    } finally {
      this.call = undefined;
    }
  }

  /** What continue-as-new carries. */
  carried(): UserMessagesCarried | undefined {
    if (!this.enabled || (!this.queued.length && !this.seen.length)) return undefined;
    return { queued: [...this.queued], seen: this.seen.slice(-CARRIED_IDS) };
  }

  private async accept(req: UserMessageRequest): Promise<UserMessageAccepted> {
    const { messageId, text, mode = 'enqueue', by } = req;
    if (this.seen.includes(messageId)) return { messageId, mode, duplicate: true };
    this.seen.push(messageId);
    this.queued.push({ messageId, text, mode, ...(by ? { by } : {}) });
    const interrupts = mode === 'interrupt' && this.call !== undefined;
    if (interrupts) {
      this.interrupted = true;
      this.call!.cancel();
    }
    await this.events.emit({ type: 'USER_MESSAGE', data: { messageId, text, mode, ...(by ? { by } : {}) } });
    return { messageId, mode, ...(interrupts ? { interrupted: true } : {}) };
  }

  /** Synchronous: a malformed message, a run that is closing, or one started before messages, is refused at once. */
  private validate(req: UserMessageRequest): void {
    if (typeof req !== 'object' || req === null) throw refused('expected { messageId, text, mode? }');
    const { messageId, text, mode } = req;
    if (typeof messageId !== 'string' || !/^[A-Za-z0-9._:-]{1,200}$/.test(messageId))
      throw refused('messageId must be 1-200 characters of A-Z a-z 0-9 . _ : -');
    if (typeof text !== 'string' || !text.trim() || text.length > MAX_USER_MESSAGE_CHARS)
      throw refused(`text must be a non-empty string of at most ${MAX_USER_MESSAGE_CHARS} characters`);
    if (mode !== undefined && mode !== 'enqueue' && mode !== 'interrupt')
      throw refused("mode must be 'enqueue' or 'interrupt'");
    if (req.by !== undefined && typeof req.by !== 'string') throw refused('by must be a string');
    if (!this.enabled) throw refused('this run started before runs took messages; start a new run instead');
    if (this.seen.includes(messageId)) return; // a repeat answers like the first time
    if (this.closing) throw refused('the run is closing (it has its final answer or is ending); start a new run');
  }
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: ErrorType.MessageRefused, message, nonRetryable: true });
}
