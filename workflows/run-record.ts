// What a run leaves in the stores: its record, its steps as they are committed (one write per turn,
// idempotent by step id), and, for a run in a session, the session's earlier conversation to continue from.
// The writes are local activities: short, never streaming, cheap in history.
import { proxyLocalActivities } from '@temporalio/workflow';
import type { ChatMessage, RunContext, Step, Usage } from '../common';
import type { AgioActivities } from '../activities';

const store = proxyLocalActivities<AgioActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 5, initialInterval: '500ms' } });

/** Records one run in the stores. */
export class RunRecorder {
  private persisted: number;

  constructor(
    private readonly context: RunContext,
    private readonly agent: string,
    private readonly startedAt: number,
    alreadyPersisted = 0,
  ) {
    this.persisted = alreadyPersisted;
  }

  private get ref() {
    const { runId, rootRunId, parentRunId, sessionId, tenant, toolCallId } = this.context;
    return { runId, rootRunId, tenant, ...(parentRunId ? { parentRunId } : {}), ...(sessionId ? { sessionId } : {}), ...(toolCallId ? { toolCallId } : {}) };
  }

  /** Records the run as running. */
  start(): Promise<void> {
    return store.recordRun({ context: this.ref, agent: this.agent, status: 'running', startedAt: this.startedAt });
  }

  /** The session's earlier conversation (root runs in a session only). */
  async history(): Promise<ChatMessage[]> {
    const { sessionId, tenant, depth } = this.context;
    if (!sessionId || depth > 0) return [];
    return store.loadConversation({ tenant, sessionId });
  }

  /** Persists the steps committed since the last flush. */
  async flush(steps: Step[]): Promise<void> {
    if (steps.length <= this.persisted) return;
    await store.persistSteps({ context: this.ref, agent: this.agent, steps: steps.slice(this.persisted) });
    this.persisted = steps.length;
  }

  /** Persists the last steps and records how the run ended. */
  async end(steps: Step[], status: 'completed' | 'failed' | 'cancelled', usage: Usage): Promise<void> {
    await this.flush(steps);
    await store.recordRun({ context: this.ref, agent: this.agent, status, startedAt: this.startedAt, endedAt: Date.now(), usage });
  }
}
