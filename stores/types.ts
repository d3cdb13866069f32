// The store interfaces (docs/ARCHITECTURE.md, "Stores"). Every read is scoped by tenant; every write is idempotent,
// so an activity retried by Temporal can repeat its writes safely.
import type { WireEvent, ChatMessage, Step } from '../common';
import type {
  Citation,
  CitationInput,
  RunInput,
  RunRecord,
  SessionInput,
  SessionWithRuns,
  SpanInput,
  ToolResultInput,
  Trace,
} from './records';
import type { WorkspaceChange, WorkspaceManifest, WorkspaceQuota } from './workspace-files';

/** Anything that needs indexes before first use; `setup()` may be called any number of times. */
export interface SetupStore {
  setup(): Promise<void>;
}

/** Sessions, their runs and the runs' steps. */
export interface SessionStore extends SetupStore {
  /** Creates the session or updates the fields given. */
  upsertSession(input: SessionInput): Promise<void>;
  /**
   * Creates or updates a run (by runId); fields absent keep their stored value. A run in a final status
   * (completed, failed, cancelled) ignores later non-final writes. A run with a sessionId creates its session.
   */
  recordRun(input: RunInput): Promise<void>;
  /** Stores steps keyed by their id (`${runId}:${index}`): a step written twice is stored once, first write wins. */
  appendSteps(tenant: string, steps: Step[], sessionId?: string): Promise<void>;
  /** The session's runs (root and nested), by start time. */
  listRuns(tenant: string, sessionId: string): Promise<RunRecord[]>;
  /** A run's steps, by index. */
  listSteps(tenant: string, runId: string): Promise<Step[]>;
  /**
   * The session's conversation as messages to prefix a new run: the steps of its root runs (runs by start time,
   * steps by index) without system steps and without tool calls that never got a result.
   */
  loadConversation(tenant: string, sessionId: string): Promise<ChatMessage[]>;
  /**
   * Takes a root run's steps out of its session's conversation (a start with `onActiveRun: 'rollback'` cancelled it):
   * loadConversation skips it from now on; its record and steps stay, marked `rolledBack`. Idempotent.
   */
  rollBackRun(tenant: string, runId: string): Promise<void>;
  /** The session with its runs, or undefined when the tenant has no such session. */
  getSession(tenant: string, sessionId: string): Promise<SessionWithRuns | undefined>;
}

/** Spans of root runs' traces. */
export interface TraceStore extends SetupStore {
  /**
   * Creates or updates a span (by spanId); fields absent keep their stored value. A finished span (`ok`,
   * `error`) ignores later `running` writes, so a retried start never reopens it.
   */
  recordSpan(input: SpanInput): Promise<void>;
  /** The trace with its span tree, or undefined when the tenant has no span in it. */
  getTrace(tenant: string, traceId: string): Promise<Trace | undefined>;
}

/** Sources cited by web tools. */
export interface CitationStore extends SetupStore {
  /** Stores the sources of one tool call; a source is stored once per (runId, toolCallId, url). */
  addCitations(tenant: string, input: CitationInput): Promise<void>;
  /** A run's citations in the order they were first added. */
  listCitations(tenant: string, runId: string): Promise<Citation[]>;
}

/** Full outputs of large tool results; the conversation keeps a truncated copy and the ref. */
export interface ToolResultStore extends SetupStore {
  /** Stores the content once and returns its ref, which depends only on runId, toolCallId and stepId. */
  put(tenant: string, input: ToolResultInput): Promise<string>;
  /** The full content, or undefined for an unknown ref or one of another run or tenant. */
  get(tenant: string, runId: string, ref: string): Promise<string | undefined>;
}

/**
 * A root run's event log (its Wire), written by the root as it goes and completed before it closes, so a reader
 * of a finished run is served from here instead of a replay of the whole run.
 */
export interface EventLogStore extends SetupStore {
  /** Stores events by (rootRunId, offset): an event written twice is stored once, first write wins. */
  append(tenant: string, rootRunId: string, events: WireEvent[]): Promise<void>;
  /** The run's stored events with offset > after, in offset order, at most `limit`. */
  read(tenant: string, rootRunId: string, after: number, limit: number): Promise<WireEvent[]>;
}

/**
 * Runs' workspaces, so any worker can bring a run's files up to date before a tool and keep what the tool changed
 * (activities/workspace/). A workspace is a manifest (paths, sizes, hashes) with a generation bumped by every commit
 * that changes it, and its file contents as blobs. Keyed by tenant and workspace id (a root run's workspace).
 */
export interface WorkspaceStore extends SetupStore {
  /** The workspace's generation: 0 for one never committed. A worker whose copy has it skips the sync. */
  generation(tenant: string, workspace: string): Promise<number>;
  /** The workspace's files at its current generation (generation 0 and no files when it has none). */
  manifest(tenant: string, workspace: string): Promise<WorkspaceManifest>;
  /** Stores a file's content under a new id for a commit to reference (an uncommitted blob is never read). */
  putBlob(tenant: string, workspace: string, content: Uint8Array): Promise<string>;
  /** A blob's content, or undefined once a later commit replaced or deleted its file. */
  getBlob(tenant: string, workspace: string, blob: string): Promise<Uint8Array | undefined>;
  /** Several blobs in one read, by id; a blob that is gone is missing from the map. */
  getBlobs(tenant: string, workspace: string, blobs: string[]): Promise<Map<string, Uint8Array>>;
  /**
   * Applies the changes on top of the current files (per file, the last commit wins), bumps the generation when
   * anything changed, deletes the blobs no longer referenced, and returns the new manifest. Past the quota it
   * throws WorkspaceQuotaExceededError, deletes the changes' blobs and leaves the workspace as it was.
   */
  commit(
    tenant: string,
    workspace: string,
    changes: WorkspaceChange[],
    quota?: WorkspaceQuota,
  ): Promise<WorkspaceManifest>;
  /** Deletes the workspace and its blobs. */
  remove(tenant: string, workspace: string): Promise<void>;
}

/** One message of a run's stored conversation: its position, and the version of the write that put it there. */
export interface StoredMessage {
  index: number;
  version: number;
  message: ChatMessage;
}

/**
 * The conversations of agent runs, as the model reads them, for calls whose conversation is too large to travel in
 * the activity input (workflows/conversation/conversation-writes.ts). Keyed by tenant, workflow execution (its Temporal
 * run id: continue-as-new starts the conversation again) and position. A position holds the message of the newest
 * version written to it, so a late write of an older version (a lost attempt finishing) never undoes a newer one.
 */
export interface MessageStore extends SetupStore {
  /** Writes the messages at their positions, except where a message of the same or a newer version is stored. */
  put(
    tenant: string,
    runId: string,
    version: number,
    messages: { index: number; message: ChatMessage }[],
  ): Promise<void>;
  /** The stored messages at positions 0..count-1, by index (a position never written is missing). */
  read(tenant: string, runId: string, count: number): Promise<StoredMessage[]>;
}
