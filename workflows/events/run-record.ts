// What a run leaves in the stores: its record, its steps as they are committed (one write per turn,
// idempotent by step id), for a root run its Wire's events (riding on those writes, see event-log.ts), and, for a
// run in a session, the session's earlier conversation to continue from. The writes are local activities: short,
// never streaming, cheap in history. During a store outage (store-calls.ts) the run waits for what it needs (its
// session, its steps, a completed run's record) without holding a workflow task, and gives up on the rest (the record
// of a run that starts, fails or is cancelled) after a few seconds.
import { isCancellation } from '@temporalio/workflow';
import type { ChatMessage, RunContext, RunEnding, Step, Usage } from '../../common';
import { EventLogWriter } from './event-log';
import { bestEffortStore, waitedStore, type StoreActivities } from './store-calls';
import type { Wire } from './wire';
import type { HandOffInput, HandedStep } from '../../common/contracts/persistence';

/** Records one run in the stores. */
export class RunRecorder {
  private persisted: number;
  /** The root's event log, written with this recorder's writes. */
  readonly eventLog: EventLogWriter;

  /**
   * @param wire the root's Wire: its events go to the event log with each write, so once the root has closed its
   *   whole log is stored (nested runs have none; their events are in their root's)
   * @param logged the offset up to which the Wire's events are already written (carried across continue-as-new)
   */
  constructor(
    private readonly context: RunContext,
    private readonly agent: string,
    private readonly startedAt: number,
    alreadyPersisted = 0,
    wire?: Wire,
    logged = -1,
  ) {
    this.persisted = alreadyPersisted;
    this.eventLog = new EventLogWriter(context, wire, logged);
  }

  /** How many of the run's steps are stored (or handed to a call that has returned). */
  get written(): number {
    return this.persisted;
  }

  private get ref() {
    const { runId, rootRunId, parentRunId, sessionId, tenant, toolCallId } = this.context;
    return {
      runId,
      rootRunId,
      tenant,
      ...(parentRunId ? { parentRunId } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(toolCallId ? { toolCallId } : {}),
    };
  }

  /** Records the run as running; best effort (an ending run records itself, its events ride on later writes). */
  async start(): Promise<void> {
    const store = bestEffortStore();
    await this.eventLog
      .withEvents((events) =>
        store.recordRun({
          context: this.ref,
          agent: this.agent,
          status: 'running',
          startedAt: this.startedAt,
          ...events,
        }),
      )
      .catch((err: unknown) => {
        if (isCancellation(err)) throw err;
      });
  }

  /** The session's earlier conversation, fitted into half the run's model-input limit (root runs in a session only). */
  async history(): Promise<ChatMessage[]> {
    const { sessionId, tenant, depth, limits } = this.context;
    if (!sessionId || depth > 0) return [];
    // At most half the run's model-input limit: the run's own conversation needs the rest.
    return waitedStore().loadConversation({
      tenant,
      sessionId,
      ...(limits.maxModelInputBytes ? { maxBytes: Math.floor(limits.maxModelInputBytes / 2) } : {}),
    });
  }

  /**
   * The steps committed since the last write, for the next model call to store before it calls the model: the
   * turn's write then costs no workflow task of its own. A step whose message is in the call's conversation (the
   * run's `messages`, which the call gets inline or reads by reference) names it instead of carrying its content
   * again (`messageOf` gives a step's message). Call `accepted()` once the call has returned; until then the steps
   * count as unwritten, so a run that ends on a failed call writes them at its end. (A root's events do not ride
   * along: an activity's input is recorded in history, and they go with the local writes instead.)
   */
  handOff(
    steps: Step[],
    conversation: ChatMessage[],
    messageOf: (step: Step) => ChatMessage | undefined,
  ): { persist?: HandOffInput; accepted(): void } {
    if (steps.length <= this.persisted) return { accepted: () => undefined };
    const count = steps.length;
    const handed = steps.slice(this.persisted).map((step): HandedStep => {
      const message = conversation.indexOf(messageOf(step)!);
      if (message < 0) return step;
      const { index, reasoningContent, isError, metrics, usage, metadata } = step;
      return {
        message,
        index,
        ...(reasoningContent !== undefined ? { reasoningContent } : {}),
        ...(isError !== undefined ? { isError } : {}),
        ...(metrics ? { metrics } : {}),
        ...(usage ? { usage } : {}),
        ...(metadata ? { metadata } : {}),
      };
    });
    return {
      persist: { context: this.ref, agent: this.agent, steps: handed },
      accepted: () => (this.persisted = Math.max(this.persisted, count)),
    };
  }

  /** Persists the steps committed since the last flush (nothing to write without new steps). */
  async flush(steps: Step[], store: StoreActivities = waitedStore()): Promise<void> {
    if (steps.length <= this.persisted) return;
    await this.eventLog.withEvents((events) =>
      store.persistSteps({ context: this.ref, agent: this.agent, steps: steps.slice(this.persisted), ...events }),
    );
    this.persisted = steps.length;
  }

  /**
   * Persists the last steps and records how the run ended: waited for when it completed, best effort when it failed or
   * was cancelled (its terminal event is not held back by a store outage).
   */
  async end(steps: Step[], status: RunEnding, usage: Usage): Promise<void> {
    const store = status === 'completed' ? waitedStore() : bestEffortStore();
    try {
      await this.flush(steps, store);
      await this.eventLog.withEvents((events) =>
        store.recordRun({
          context: this.ref,
          agent: this.agent,
          status,
          startedAt: this.startedAt,
          endedAt: Date.now(),
          usage,
          ...events,
        }),
      );
    } catch (err) {
      if (!isCancellation(err)) this.eventLog.gaveUpWriting();
      throw err;
    }
  }
}
