// Publishes events from an activity into a root run's Wire: batched (one signal per ≤ 100 ms, never one per
// token), ordered (one send at a time) and deduplicated (publisherId + sequence, so a resent batch is ignored).
import { Context } from '@temporalio/activity';
import type { EventDraft, PublishBatch } from '../common';
import { publishSignal } from '../common/messages';

/** Sends one batch (a signal to the root run in production; anything in unit tests). */
export type BatchSender = (batch: PublishBatch) => Promise<void>;

/** A batching publisher for one activity attempt. */
export class WirePublisher {
  private buffer: EventDraft[] = [];
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the pending timer flushes (epoch ms). */
  private due = 0;
  private sending: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly send: BatchSender,
    readonly publisherId: string,
    /**
     * Longest an event waits in the buffer; a step's sink lengthens it as the root's history fills (see deltaPacing).
     */
    public flushIntervalMs = 100,
  ) {}

  /** Queues an event; `immediate` flushes now (first delta of a step, STEP_RETRY). `mergeInto` may fold the event
   * into the last one still waiting in the buffer (it returns the merged event, or undefined to keep both): a
   * batch then carries one event per run of similar deltas instead of one per token, and nothing waits longer. */
  publish(event: EventDraft, immediate = false, mergeInto?: (last: EventDraft) => EventDraft | undefined): void {
    const last = this.buffer.at(-1);
    const merged = last && mergeInto?.(last);
    if (merged) this.buffer[this.buffer.length - 1] = merged;
    else this.buffer.push(event);
    if (immediate) this.flushInBackground();
    else this.flushWithin(this.flushIntervalMs);
  }

  /** Makes sure what is buffered is sent within `ms` (sooner if a flush is already due sooner). */
  flushWithin(ms: number): void {
    const due = Date.now() + ms;
    if (this.timer && this.due <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => this.flushInBackground(), ms);
  }

  /** Whether any batch has been handed to the sender yet. */
  get started(): boolean {
    return this.sequence > 0;
  }

  /** Drops what is buffered and not yet sent. */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.buffer = [];
  }

  /** A flush nobody awaits: a failed send is kept in `failure` and reported by the next `flush()` instead of
   * becoming an unhandled rejection (which would crash the worker process). */
  private flushInBackground(): void {
    this.flush().catch(() => undefined);
  }

  /** Sends what is buffered; resolves when every batch so far is delivered. Rejects if a send failed. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length) {
      const batch: PublishBatch = { publisherId: this.publisherId, sequence: this.sequence++, events: this.buffer };
      this.buffer = [];
      // Once a batch is lost the rest are dropped: a later batch would leave a hole in the step's text, and a
      // root run that is gone (cancelled, finished) would keep this activity busy retrying every one of them.
      this.sending = this.sending
        .then(() => (this.failure ? undefined : this.sendWithRetry(batch)))
        .catch((err) => {
          this.failure ??= err;
        });
    }
    return this.sending.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  private async sendWithRetry(batch: PublishBatch, attempts = 5): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        return await this.send(batch);
      } catch (err) {
        // A closed or missing root run never takes the batch: no retry.
        if (i >= attempts || (err as Error)?.name === 'WorkflowNotFoundError') throw err;
        await new Promise((r) => setTimeout(r, 100 * 2 ** i));
      }
    }
  }
}

/** A publisher for the current activity attempt, sending to the root run's publish signal. */
export function activityPublisher(rootRunId: string, channel?: string): WirePublisher {
  const ctx = Context.current();
  const { workflowExecution, activityId, attempt } = ctx.info;
  const handle = ctx.client.workflow.getHandle(rootRunId);
  // The Wire drops a batch whose sequence its publisher already sent: a second publisher of one attempt (e.g. its
  // outage notice beside its deltas) needs a channel of its own.
  return new WirePublisher(
    (batch) => handle.signal(publishSignal, batch),
    `act:${workflowExecution?.runId ?? 'standalone'}/${activityId}/${attempt}${channel ? `/${channel}` : ''}`,
  );
}
