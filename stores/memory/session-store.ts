// SessionStore in memory: the embedded default, and the reference the MongoDB store is tested against.
import { Step, isFinalRunPhase, type ChatMessage } from '../../common';
import { conversationFromSteps, inSessionConversation } from '../conversation';
import {
  RecordId,
  RunInput,
  SessionInput,
  isId,
  parseRecord,
  type RunRecord,
  type Session,
  type SessionWithRuns,
} from '../records';
import type { SessionStore } from '../types';
import { TenantMap } from './tenant-map';

interface StoredStep {
  step: Step;
  sessionId?: string;
}

const byStart = (a: RunRecord, b: RunRecord) =>
  a.startedAt - b.startedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);

/** Sessions, runs and steps in Maps; lost when the process exits. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new TenantMap<Session>();
  private readonly runs = new TenantMap<RunRecord>();
  private readonly steps = new TenantMap<StoredStep>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async upsertSession(input: SessionInput): Promise<void> {
    const { tenant, ...fields } = parseRecord(SessionInput, input);
    this.touchSession(tenant, fields.sessionId, fields);
  }

  async recordRun(input: RunInput): Promise<void> {
    const { tenant, ...run } = parseRecord(RunInput, input);
    const stored = this.runs.get(tenant, run.runId);
    if (stored && isFinalRunPhase(stored.status) && !isFinalRunPhase(run.status)) return;
    this.runs.set(tenant, run.runId, { ...stored, ...run });
    if (run.sessionId) this.touchSession(tenant, run.sessionId, {});
  }

  async appendSteps(tenant: string, steps: Step[], sessionId?: string): Promise<void> {
    RecordId.parse(tenant);
    if (sessionId !== undefined) RecordId.parse(sessionId);
    for (const step of steps.map((s) => Step.parse(s))) {
      if (!this.steps.has(tenant, step.id))
        this.steps.set(tenant, step.id, { step, ...(sessionId ? { sessionId } : {}) });
    }
  }

  async listRuns(tenant: string, sessionId: string): Promise<RunRecord[]> {
    if (!isId(tenant) || !isId(sessionId)) return [];
    return this.runs.filter(tenant, (r) => r.sessionId === sessionId).sort(byStart);
  }

  async listSteps(tenant: string, runId: string): Promise<Step[]> {
    if (!isId(tenant) || !isId(runId)) return [];
    return this.steps
      .filter(tenant, (s) => s.step.runId === runId)
      .map((s) => s.step)
      .sort((a, b) => a.index - b.index);
  }

  async loadConversation(tenant: string, sessionId: string): Promise<ChatMessage[]> {
    const roots = (await this.listRuns(tenant, sessionId)).filter(inSessionConversation);
    return conversationFromSteps(await Promise.all(roots.map((r) => this.listSteps(tenant, r.runId))));
  }

  async rollBackRun(tenant: string, runId: string): Promise<void> {
    const stored = isId(tenant) && isId(runId) ? this.runs.get(tenant, runId) : undefined;
    if (stored) this.runs.set(tenant, runId, { ...stored, rolledBack: true });
  }

  async getSession(tenant: string, sessionId: string): Promise<SessionWithRuns | undefined> {
    if (!isId(tenant) || !isId(sessionId)) return undefined;
    const session = this.sessions.get(tenant, sessionId);
    return session && { ...session, runs: await this.listRuns(tenant, sessionId) };
  }

  private touchSession(tenant: string, sessionId: string, fields: Partial<Session>): void {
    const now = Date.now();
    const stored = this.sessions.get(tenant, sessionId);
    this.sessions.set(tenant, sessionId, { createdAt: now, ...stored, ...fields, sessionId, updatedAt: now });
  }
}
