// What a run leaves in the stores: its record, its steps as they are committed (one write per turn,
// idempotent by step id), for a root run its Wire's events, and, for a run in a session, the session's earlier
// conversation to continue from. The writes are local activities: short, never streaming, cheap in history (a
// local activity's input is not recorded, so the events riding on them cost no history). The one exception is
// the root's last write, of its terminal event: see {@link RunRecorder.logTail}.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgioEvent, ChatMessage, RunContext, Step, Usage } from '../common';
import type { AgioActivities } from '../activities';
import type { HandedStep, HandOffInput } from '../activities/persistence';
import type { Wire } from './wire';

const STORE_WRITE = { startToCloseTimeout: '30s', retry: { maximumAttempts: 5, initialInterval: '500ms' } } as const;
const store = proxyLocalActivities<AgioActivities>(STORE_WRITE);
const eventLog = proxyActivities<AgioActivities>(STORE_WRITE);

/** The patch under which a root writes its terminal event to its event log (a command runs of older code lack). */
export const EVENT_LOG_TAIL_PATCH = 'agio-event-log-tail';


/** Records one run in the stores. */
export class RunRecorder {
  private persisted: number;

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
    private readonly wire?: Wire,
    private logged = -1,
  ) {
    this.persisted = alreadyPersisted;
  }

  /** The Wire offset up to which events are written to the event log. */
  get loggedOffset(): number {
    return this.logged;
  }

  private get ref() {
    const { runId, rootRunId, parentRunId, sessionId, tenant, toolCallId } = this.context;
    return { runId, rootRunId, tenant, ...(parentRunId ? { parentRunId } : {}), ...(sessionId ? { sessionId } : {}), ...(toolCallId ? { toolCallId } : {}) };
  }

  /** Runs a store write carrying the Wire's events not written yet; they count as written once it succeeds. */
  private async withEvents(write: (events: { events?: AgioEvent[] }) => Promise<void>): Promise<void> {
    const events = this.wire?.since(this.logged) ?? [];
    await write(events.length ? { events } : {});
    if (events.length) this.logged = events[events.length - 1].offset;
  }

  /** Records the run as running. */
  start(): Promise<void> {
    return this.withEvents((events) => store.recordRun({ context: this.ref, agent: this.agent, status: 'running', startedAt: this.startedAt, ...events }));
  }

  /** The session's earlier conversation (root runs in a session only). */
  async history(): Promise<ChatMessage[]> {
    const { sessionId, tenant, depth } = this.context;
    if (!sessionId || depth > 0) return [];
    return store.loadConversation({ tenant, sessionId });
  }

  /**
   * The steps committed since the last write, for the next model call to store before it calls the model: the
   * turn's write then costs no workflow task of its own. A step whose message is in the call's conversation (the
   * run's `messages`, which the call gets inline or reads by reference) names it instead of carrying its content
   * again (`messageOf` gives a step's message). Call `accepted()` once
   * the call has returned; until then the steps count as unwritten, so a run that ends on a failed call writes them
   * at its end. (A root's events do not ride along: an activity's input is recorded in history, and they go with
   * the local writes instead.)
   */
  handOff(steps: Step[], conversation: ChatMessage[], messageOf: (step: Step) => ChatMessage | undefined): { persist?: HandOffInput; accepted(): void } {
    if (steps.length <= this.persisted) return { accepted: () => undefined };
    const count = steps.length;
    const handed = steps.slice(this.persisted).map((step): HandedStep => {
      const message = conversation.indexOf(messageOf(step)!);
      if (message < 0) return step;
      const { index, reasoningContent, isError, metrics, usage, metadata } = step;
      return { message, index, ...(reasoningContent !== undefined ? { reasoningContent } : {}), ...(isError !== undefined ? { isError } : {}), ...(metrics ? { metrics } : {}), ...(usage ? { usage } : {}), ...(metadata ? { metadata } : {}) };
    });
    return {
      persist: { context: this.ref, agent: this.agent, steps: handed },
      accepted: () => (this.persisted = Math.max(this.persisted, count)),
    };
  }

  /** Persists the steps committed since the last flush (nothing to write without new steps). */
  async flush(steps: Step[]): Promise<void> {
    if (steps.length <= this.persisted) return;
    await this.withEvents((events) => store.persistSteps({ context: this.ref, agent: this.agent, steps: steps.slice(this.persisted), ...events }));
    this.persisted = steps.length;
  }

  /**
   * Writes the events the root's Wire got since its last write, its terminal event among them, as a regular
   * activity: the workflow task that put the terminal event on the Wire then completes with the run still open, so
   * a reader's Query that waited on that task is answered from the worker's cache. (A Query waiting on the task that
   * closes the run is handed by the server to a worker that replays the whole run.) Once the run has closed, its
   * log is complete and readers are served from the store. A write that fails leaves the log short; readers then
   * fall back to the Query.
   */
  async logTail(): Promise<void> {
    const events = this.wire?.since(this.logged) ?? [];
    if (!events.length) return;
    await eventLog.logEvents({ tenant: this.context.tenant, rootRunId: this.context.rootRunId, events }).catch(() => undefined);
    this.logged = events[events.length - 1].offset;
  }

  /** Persists the last steps and records how the run ended. */
  async end(steps: Step[], status: 'completed' | 'failed' | 'cancelled', usage: Usage): Promise<void> {
    await this.flush(steps);
    await this.withEvents((events) => store.recordRun({ context: this.ref, agent: this.agent, status, startedAt: this.startedAt, endedAt: Date.now(), usage, ...events }));
  }
}
