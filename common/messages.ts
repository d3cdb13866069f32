// Signals, queries and updates of Agio's workflows, and what they carry: the contract between a run and whoever
// talks to it (activities, the client, the bridge, its parent). Imports nothing but the SDK's define functions, which
// are safe in the workflow sandbox and outside it alike.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EventsPage, EventsQueryInput, PublishBatch } from './events';
import type { ToolCallDecision } from './permissions';
import type { SubAgentFailure } from './run';
import type { ReportedRunPhase } from './run-status';
import type { ChatMessage, Usage } from './steps';
import type { BudgetRaise, BudgetSpent } from './budgets';
import type { PendingApproval } from './approval-inbox';
import type { CallbackAck, CallbackCompletion, PendingCallback } from './callbacks';

/** A batch of events for the root run's log, from an activity or a nested run. */
export const publishSignal = defineSignal<[PublishBatch]>('publish');

/** Reads the root run's log after an offset (a Query: costs no history, any number of readers). */
export const eventsQuery = defineQuery<EventsPage, [EventsQueryInput]>('events');

/** The first `count` messages of an agent run's conversation: how callModel reads a conversation too large to
 * travel in its input (a Query: the conversation is in the workflow already, so the history holds it once). */
export const conversationQuery = defineQuery<ChatMessage[], [{ count: number }]>('conversation');

/** A run's live state: what it is doing now. */
export const stateQuery = defineQuery<RunState>('state');

/** What the state query answers (agent runs and workflow agents alike; fields that do not apply are absent). */
export interface RunState extends ControlState {
  runId: string;
  agent: string;
  kind: 'llm' | 'loop' | 'sequential' | 'parallel';
  status: ReportedRunPhase;
  /** Agent runs: index of the step being produced or run. */
  currentStep?: number;
  modelCalls?: number;
  toolCalls?: number;
  /** Agent runs: tool calls of the current turn still running. */
  runningTools?: string[];
  /** Loops: iterations completed, and the sub-agent running now. */
  timesLooped?: number;
  currentSubAgent?: string;
  currentSubAgentIndex?: number;
  /** Workflow agents: the shared state. */
  state?: Record<string, unknown>;
  /** Parallel agents: branches that failed so far (the run completes with failures unless all fail). */
  failures?: SubAgentFailure[];
  /** Child workflows running now. */
  children: string[];
  /** What the run has spent so far: its own model calls and its finished nested runs' (cost included). */
  usage?: Usage;
  /** The run tree's cost budget in US dollars (limits.maxCostUsd, or what it was raised to). */
  maxCostUsd?: number;
  /** Tool calls waiting for a human decision. */
  pendingApprovals: PendingApproval[];
  /** Agent runs: callback tool calls waiting for their outside result. */
  pendingCallbacks?: PendingCallback[];
  /** Agent runs: ids of the user messages accepted and not read yet (see userMessageUpdate). */
  queuedMessages?: string[];
}

/** Who asks to pause or resume, and why (carried into RUN_PAUSED / RUN_RESUMED). */
export interface ControlRequest {
  reason?: string;
  by?: string;
}

/** Pause at the next safe point (signal: fire and forget; the Temporal CLI may send it without input). */
export const pauseSignal = defineSignal<[ControlRequest]>('pause');
/** Resume a paused run (signal). */
export const resumeSignal = defineSignal<[ControlRequest]>('resume');
/**
 * Pause and wait until the run is parked at a safe point (update). Refused at once (type `AlreadyPaused`) while the run
 * is paused or a pause is pending, so repeated pauses never fill Temporal's 10 in-flight updates of a run.
 */
export const pauseUpdate = defineUpdate<ControlState, [ControlRequest]>('pause');
/** Resume and return the new control state (update). */
export const resumeUpdate = defineUpdate<ControlState, [ControlRequest]>('resume');

/**
 * Move to the deployment's current worker version at the next safe point (sent by `agio versions promote` to runs
 * pinned to an older version): a paused run moves at once, still paused; others at the end of their turn or iteration.
 */
export const upgradeSignal = defineSignal('agio.upgrade');

/**
 * The run tree's cost budget was raised (or its tenant's): the run takes the new limits.maxCostUsd, forwards the
 * signal to its children, and resumes if it is paused for a budget (then asks again; a budget still spent pauses it).
 */
export const budgetRaiseSignal = defineSignal<[BudgetRaise]>('agio.budget');

/** A child tells its parent whether it is parked, so the parent's pause update knows when the tree is. */
export const childParkedSignal = defineSignal<[{ childId: string; parked: boolean }]>('childParked');

/**
 * An agent-tool child tells its parent when it starts and stops waiting (for a person, or paused), so the parent's
 * deadline for it counts only its active time.
 */
export const childWaitingSignal = defineSignal<[{ childId: string; waiting: boolean }]>('childWaiting');

/** Pause bookkeeping of a run, as the control updates and the state query report it. */
export interface ControlState {
  paused: boolean;
  /** True once the run has stopped at a safe point (or waits only on paused children). */
  parked: boolean;
  pausedBy?: string;
  pauseReason?: string;
  /** True once the run has ended (a pause asked for too late never took effect). */
  finished?: boolean;
  /** Paused for a cost budget (pauseReason `budget`): which budget, its limit and the spend. */
  budget?: BudgetSpent;
}

/** A human decision on a pending tool call, sent to the workflow that owns the call (it may be a child). */
export const decideToolCallUpdate = defineUpdate<
  { toolCallId: string; decision: 'approve' | 'deny' },
  [ToolCallDecision]
>('decideToolCall');

/** A user message for a running agent run (see userMessageUpdate). */
export interface UserMessageRequest {
  /**
   * Chosen by the sender (the client makes one up when its caller gave none): a repeat is answered, not queued again.
   */
  messageId: string;
  text: string;
  /** `enqueue` (default): read before the next model call; `interrupt`: also cancel the model call in flight. */
  mode?: 'enqueue' | 'interrupt';
  by?: string;
}

/** The answer to an accepted user message. */
export interface UserMessageAccepted {
  messageId: string;
  mode: 'enqueue' | 'interrupt';
  /** The id was accepted before: nothing was queued again. */
  duplicate?: boolean;
  /** A model call was in flight and is cancelled, to be asked again with the message. */
  interrupted?: boolean;
}

/**
 * Adds a user message to a running agent run (update). Its validator refuses at once (type `MessageRefused`) a run that
 * is closing, a malformed message, and a run started before messages; workflow agents have no handler.
 */
export const userMessageUpdate = defineUpdate<UserMessageAccepted, [UserMessageRequest]>('agio.message');

/**
 * A callback tool's result for the workflow that waits for it (this run or a nested one; common/callbacks.ts). The
 * validator refuses an unknown callback (`CallbackNotFound`), one already completed (`CallbackAlreadyCompleted`) and
 * one past its timeout (`CallbackExpired`), so a result is taken once and its sender is told why not.
 */
export const completeCallbackUpdate = defineUpdate<CallbackAck, [CallbackCompletion]>('agio.completeCallback');
