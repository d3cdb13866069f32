// The contracts of the activities that keep what users look at after a run (activities/persistence.ts) and of the
// session runner's rollback (activities/session-runs.ts): the run's record, its steps, its event log, compacted
// contents, a session's earlier conversation.
import type { WireEvent } from '../events';
import type { RunContext } from '../run';
import type { ReportedRunPhase } from '../run-status';
import type { Step, Usage } from '../steps';

/** Input of recordRun: a run starting or ending. */
export interface RecordRunInput {
  context: Pick<RunContext, 'runId' | 'rootRunId' | 'parentRunId' | 'sessionId' | 'tenant' | 'toolCallId'>;
  agent: string;
  status: ReportedRunPhase;
  startedAt: number;
  endedAt?: number;
  usage?: Usage;
  /** The root's Wire events since its last write (a root run only). */
  events?: WireEvent[];
  /** The log `events` belong to when it is not the root's (a nested run that keeps its own). */
  eventLogId?: string;
}

/** Input of persistSteps: the steps committed since the last call. */
export interface PersistStepsInput {
  context: RecordRunInput['context'];
  agent: string;
  steps: Step[];
  /** The root's Wire events since its last write (a root run only). */
  events?: WireEvent[];
  /** The log `events` belong to when it is not the root's (a nested run that keeps its own). */
  eventLogId?: string;
}

/** Input of logEvents: a run's Wire events to add to its event log. */
export interface LogEventsInput {
  tenant: string;
  /** The id of the run whose log it is: the root's, or a nested run's that keeps its own. */
  rootRunId: string;
  events: WireEvent[];
}

/** Input of storeCompacted: contents compacted out of a run's conversation, each under its own key. */
export interface StoreCompactedInput {
  tenant: string;
  runId: string;
  items: { key: string; content: string }[];
}

/**
 * A step handed to a model call. One whose message is in that call's conversation (inline, or read by reference)
 * names that message (its index there) and carries only what the message lacks, so the run's history does not
 * record it twice.
 */
export type HandedStep =
  | Step
  | ({ message: number } & Pick<Step, 'index'> &
      Partial<Pick<Step, 'reasoningContent' | 'isError' | 'metrics' | 'usage' | 'metadata'>>);

/** The steps a model call stores before it calls the model. */
export interface HandOffInput {
  context: RecordRunInput['context'];
  agent: string;
  steps: HandedStep[];
}

/** Input of rollBackRun. */
export interface RollBackRunInput {
  tenant: string;
  runId: string;
}

/** Input of loadConversation: a session's earlier conversation, fitted into `maxBytes` (absent: a default). */
export interface LoadConversationInput {
  tenant: string;
  sessionId: string;
  maxBytes?: number;
}
