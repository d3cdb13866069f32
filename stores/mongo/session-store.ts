// SessionStore on MongoDB: sessions, runs and steps in three collections, every write an idempotent upsert.
import type { Collection, MongoClient } from 'mongodb';
import { RunPhase, Step, isFinalRunPhase, type ChatMessage } from '../../common';
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
import { STORE_FIELDS, insertOnce, storeCollection, upsertRacing, type MongoStoreOptions } from './collections';

type SessionDoc = Session & { tenant: string };
type RunDoc = RunRecord & { tenant: string };
type StepDoc = Step & { tenant: string; sessionId?: string };

const FINAL_STATUSES = RunPhase.options.filter(isFinalRunPhase);

/** Sessions, runs and steps in MongoDB (collections `sessions`, `runs`, `steps`). */
export class MongoSessionStore implements SessionStore {
  private readonly sessions: Collection<SessionDoc>;
  private readonly runs: Collection<RunDoc>;
  private readonly steps: Collection<StepDoc>;

  constructor(client: MongoClient, opts: MongoStoreOptions = {}) {
    this.sessions = storeCollection(client, opts, 'sessions');
    this.runs = storeCollection(client, opts, 'runs');
    this.steps = storeCollection(client, opts, 'steps');
  }

  /** Creates the indexes the writes and queries rely on; safe to call again. */
  async setup(): Promise<void> {
    await this.sessions.createIndex({ tenant: 1, sessionId: 1 }, { unique: true });
    await this.runs.createIndex({ tenant: 1, runId: 1 }, { unique: true });
    await this.runs.createIndex({ tenant: 1, sessionId: 1, startedAt: 1 });
    await this.steps.createIndex({ tenant: 1, id: 1 }, { unique: true });
    await this.steps.createIndex({ tenant: 1, runId: 1, index: 1 });
  }

  async upsertSession(input: SessionInput): Promise<void> {
    const { tenant, sessionId, ...fields } = parseRecord(SessionInput, input);
    await this.touchSession(tenant, sessionId, fields);
  }

  async recordRun(input: RunInput): Promise<void> {
    const { tenant, runId, ...fields } = parseRecord(RunInput, input);
    // A non-final write only matches a run that is not final yet; against a final one its upsert collides on
    // the unique index and is dropped, so a late "running" never reopens a finished run.
    const filter = isFinalRunPhase(fields.status)
      ? { tenant, runId }
      : { tenant, runId, status: { $nin: FINAL_STATUSES } };
    await upsertRacing(() => this.runs.updateOne(filter, { $set: fields }, { upsert: true }));
    if (fields.sessionId) await this.touchSession(tenant, fields.sessionId, {});
  }

  async appendSteps(tenant: string, steps: Step[], sessionId?: string): Promise<void> {
    RecordId.parse(tenant);
    if (sessionId !== undefined) RecordId.parse(sessionId);
    const docs = steps.map((s) => ({ ...Step.parse(s), tenant, ...(sessionId ? { sessionId } : {}) }));
    await insertOnce(this.steps, docs);
  }

  async listRuns(tenant: string, sessionId: string): Promise<RunRecord[]> {
    if (!isId(tenant) || !isId(sessionId)) return [];
    return this.runs
      .find({ tenant, sessionId }, { projection: STORE_FIELDS, sort: { startedAt: 1, runId: 1 } })
      .toArray();
  }

  async listSteps(tenant: string, runId: string): Promise<Step[]> {
    if (!isId(tenant) || !isId(runId)) return [];
    return this.steps
      .find({ tenant, runId }, { projection: { ...STORE_FIELDS, sessionId: 0 }, sort: { index: 1 } })
      .toArray();
  }

  async loadConversation(tenant: string, sessionId: string): Promise<ChatMessage[]> {
    const roots = (await this.listRuns(tenant, sessionId)).filter(inSessionConversation).map((r) => r.runId);
    if (!roots.length) return [];
    const steps = await this.steps
      .find({ tenant, runId: { $in: roots } }, { projection: { ...STORE_FIELDS, sessionId: 0 }, sort: { index: 1 } })
      .toArray();
    return conversationFromSteps(roots.map((runId) => steps.filter((s) => s.runId === runId)));
  }

  async rollBackRun(tenant: string, runId: string): Promise<void> {
    if (!isId(tenant) || !isId(runId)) return;
    await this.runs.updateOne({ tenant, runId }, { $set: { rolledBack: true } });
  }

  async getSession(tenant: string, sessionId: string): Promise<SessionWithRuns | undefined> {
    if (!isId(tenant) || !isId(sessionId)) return undefined;
    const session = await this.sessions.findOne({ tenant, sessionId }, { projection: STORE_FIELDS });
    return session ? { ...session, runs: await this.listRuns(tenant, sessionId) } : undefined;
  }

  private async touchSession(tenant: string, sessionId: string, fields: Partial<Session>): Promise<void> {
    const now = Date.now();
    const update = { $set: { ...fields, updatedAt: now }, $setOnInsert: { createdAt: now } };
    await upsertRacing(() => this.sessions.updateOne({ tenant, sessionId }, update, { upsert: true }));
  }
}
