// Entry point of the stores (activity side only: workflows never reach a store). Memory stores serve the
// embedded default; MongoDB stores serve real deployments.
import type { MongoClient } from 'mongodb';
import { MemoryCitationStore } from './memory/citation-store';
import { MemoryEventLogStore } from './memory/event-log-store';
import { MemoryMessageStore } from './memory/message-store';
import { MemorySessionStore } from './memory/session-store';
import { MemoryToolResultStore } from './memory/tool-result-store';
import { MemoryTraceStore } from './memory/trace-store';
import { MemoryWorkspaceStore } from './memory/workspace-store';
import { MemorySpendStore } from './memory/spend-store';
import { MongoCitationStore } from './mongo/citation-store';
import { MongoEventLogStore } from './mongo/event-log-store';
import type { MongoStoreOptions } from './mongo/collections';
import { MongoMessageStore } from './mongo/message-store';
import { MongoSessionStore } from './mongo/session-store';
import { MongoToolResultStore } from './mongo/tool-result-store';
import { MongoTraceStore } from './mongo/trace-store';
import { MongoWorkspaceStore } from './mongo/workspace-store';
import { MongoSpendStore } from './mongo/spend-store';
import { MemoryWebhookStore } from './memory/webhook-store';
import { MongoWebhookStore } from './mongo/webhook-store';
import type { WebhookStore } from './webhooks';
import type { SpendStore } from './spend';
import type {
  CitationStore,
  EventLogStore,
  MessageStore,
  SessionStore,
  ToolResultStore,
  TraceStore,
  WorkspaceStore,
} from './types';

export * from './records';
export * from './types';
export * from './workspace-files';
export * from './spend';
export * from './webhooks';
export { toolResultRef } from './tool-result-ref';
export type { MongoStoreOptions } from './mongo/collections';
export { MemoryCitationStore, MemoryEventLogStore, MemorySessionStore, MemoryToolResultStore, MemoryTraceStore };
export { MongoCitationStore, MongoEventLogStore, MongoSessionStore, MongoToolResultStore, MongoTraceStore };
export { MemoryWorkspaceStore, MongoWorkspaceStore };
export { MemoryMessageStore, MongoMessageStore };
export { MemorySpendStore, MongoSpendStore };
export { MemoryWebhookStore, MongoWebhookStore };

/** The stores a worker (and a bridge) uses, of one kind. */
export interface Stores {
  sessions: SessionStore;
  traces: TraceStore;
  citations: CitationStore;
  toolResults: ToolResultStore;
  /** Root runs' event logs, which serve the streams of finished runs. */
  events: EventLogStore;
  /** Runs' workspaces, which any worker brings up to date before a tool (activities/workspace/). */
  workspaces: WorkspaceStore;
  /** Runs' conversations, for model calls whose conversation is too large to travel in their input. */
  messages: MessageStore;
  /** What priced model calls cost, by tree and by tenant per day, and tenants' daily budgets (the cost budgets). */
  spend: SpendStore;
  /** Webhook subscriptions and the delivery log (activities/webhooks/). */
  webhooks: WebhookStore;
  /** Sets up every store (creates MongoDB indexes); safe to call again. */
  setup(): Promise<void>;
}

function bundle(stores: Omit<Stores, 'setup'>): Stores {
  return {
    ...stores,
    async setup() {
      for (const store of Object.values(stores)) await store.setup();
    },
  };
}

/** Stores in process memory: for the embedded default and tests; `replace` puts other stores in place of some. */
export function createMemoryStores(replace: Partial<Omit<Stores, 'setup'>> = {}): Stores {
  return bundle({
    sessions: new MemorySessionStore(),
    traces: new MemoryTraceStore(),
    citations: new MemoryCitationStore(),
    toolResults: new MemoryToolResultStore(),
    events: new MemoryEventLogStore(),
    workspaces: new MemoryWorkspaceStore(),
    messages: new MemoryMessageStore(),
    spend: new MemorySpendStore(),
    webhooks: new MemoryWebhookStore(),
    ...replace,
  });
}

/** Stores in MongoDB through the caller's client (the caller connects and closes it); call `setup()` once. */
export function createMongoStores(client: MongoClient, opts: MongoStoreOptions = {}): Stores {
  return bundle({
    sessions: new MongoSessionStore(client, opts),
    traces: new MongoTraceStore(client, opts),
    citations: new MongoCitationStore(client, opts),
    toolResults: new MongoToolResultStore(client, opts),
    events: new MongoEventLogStore(client, opts),
    workspaces: new MongoWorkspaceStore(client, opts),
    messages: new MongoMessageStore(client, opts),
    spend: new MongoSpendStore(client, opts),
    webhooks: new MongoWebhookStore(client, opts),
  });
}
