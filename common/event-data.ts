// What each event type of a run's stream carries besides the envelope (docs/ARCHITECTURE.md, "The Wire"): the `data`
// every emitter in workflows/ and activities/ writes, as plain types (the viewer imports them without zod).
import type { BudgetSpent } from './budgets';
import type { PermissionRule } from './permissions';
import type { RunMetrics, SubAgentFailure, TerminationReason } from './run';
import type { Step, StepDelta, Usage } from './steps';

/** An error as events carry it: its Agio error type (see `ErrorType`) and its message. */
export type EventError = { type: string; message: string };

/** Which run and tool call a TOOL_AUTH_* event is about. */
export type ToolCallRef = {
  /** The model's id of the call (what approve/deny take). */
  toolCallId: string;
  /** The tool's name. */
  tool: string;
  /** The workflow that asked (this run or a nested one): decisions go there. */
  workflowId: string;
  /** The run that made the call. */
  runId: string;
};

/** RUN_STARTED: an LLM agent's input (previewed when long), or a workflow agent's kind and sub-agents. */
export type RunStartedData = {
  /** The input, cut to a preview when long; "N messages" for a conversation. */
  input?: string;
  /** Length of the whole input when `input` is a preview. */
  inputChars?: number;
  sessionId?: string;
  /** Workflow agents: their kind and sub-agents. */
  kind?: 'loop' | 'sequential' | 'parallel';
  subAgents?: string[];
  /** A retry: the run it continues from its last completed step (common/run-origin.ts). */
  retriedFrom?: string;
  /** A fork: the run it was forked from, at `step`. */
  forkedFrom?: string;
  /** A fork: the source run's step it starts at. */
  step?: number;
};

/**
 * RUN_COMPLETED: the answer and why the run stopped (`synthetic`: written by a reader for a run closed without one).
 */
export type RunCompletedData = {
  response?: string;
  terminationReason?: TerminationReason;
  /** LLM agents: their counters, and the tokens they spent themselves (`usage` counts their nested runs too). */
  metrics?: RunMetrics;
  ownUsage?: Usage;
  /** Workflow agents: their shared state. */
  state?: Record<string, unknown>;
  /** A workflow agent some of whose sub-agents failed: `completed_with_failures`, and which failed. */
  status?: 'completed_with_failures' | 'completed';
  failures?: SubAgentFailure[];
  synthetic?: true;
};

/**
 * RUN_FAILED: the error (`Terminated`, `TimedOut` for runs Temporal ended), and the failed sub-agents of a workflow
 * agent.
 */
export type RunFailedData = {
  error: EventError;
  failures?: SubAgentFailure[];
  /** A child the server ended without running its code: the parent that reported its end. */
  reportedBy?: string;
  /** Written by a reader for a run Temporal closed without its terminal event; `status` says how it closed. */
  synthetic?: true;
  status?: 'failed' | 'terminated' | 'timed_out';
};

/** RUN_CANCELLED: the cancellation as an error (absent on a synthetic one). */
export type RunCancelledData = { error?: EventError; synthetic?: true; status?: 'cancelled' };

/**
 * RUN_PAUSED / RUN_RESUMED: who asked and why, when they said. A pause for a spent cost budget says `reason: 'budget'`,
 * `by: 'agio'` and which budget, its limit and the spend (`budget`).
 */
export type ControlEventData = { reason?: string; by?: string; budget?: BudgetSpent };

/** AGENT_STATE: a workflow agent's position (loop and sequence) or its branches (parallel). */
export type AgentStateData = {
  timesLooped?: number;
  currentSubAgent?: string;
  currentSubAgentIndex?: number;
  branches?: string[];
};

/** TOOL_AUTH_REQUIRED: a call waits for a person's decision (`run.approve(toolCallId)` / `run.deny(toolCallId)`). */
export type ToolAuthRequiredData = ToolCallRef & {
  /** The call's parsed arguments. */
  args: unknown;
  /** Why it asks: the rule's pattern it matched, or that the tool requires approval. */
  reason: string;
  /** What a decision may quote to be bound to this very call (runs since patch `agio-approval-inbox`). */
  binding?: string;
  /** When the approval expires (epoch ms), and what happens then. */
  expiresAt?: number;
  onExpiry?: 'deny' | 'escalate' | 'pause';
};

/** TOOL_AUTH_GRANTED: the call was approved. */
export type ToolAuthGrantedData = ToolCallRef & {
  /** Who decided (the token's identity over HTTP; `operator` when none was given). */
  by: string;
  remember: boolean;
  /** What `remember` allows from now on: the same call (the tool with the same arguments). */
  remembered?: 'exact_call';
};

/** TOOL_AUTH_DENIED: a rule denied the call, a person did, or nobody decided in time. */
export type ToolAuthDeniedData = ToolCallRef & {
  reason: 'rule' | 'denied' | 'timeout';
  /** `rule`: the rule that denied it. */
  rule?: PermissionRule;
  /** `denied`: who, and what they told the model. */
  by?: string;
  message?: string;
};

/** TOOL_AUTH_EXPIRED: nobody decided an asked call before its approval expired; `action` says what happens now. */
export type ToolAuthExpiredData = ToolCallRef & {
  action: 'deny' | 'escalate' | 'pause';
  /** `escalate`: the role the call now waits on. */
  escalatedTo?: string;
  /** When the approval expired (epoch ms). */
  expiredAt?: number;
  /** `escalate`: the call's new binding (a decision quoting the old one is refused), and when it expires again. */
  binding?: string;
  expiresAt?: number;
};

/** TOOL_CALLBACK_WAITING: a callback tool started its outside work and waits for its result. */
export type ToolCallbackWaitingData = ToolCallRef & {
  /** When the wait ends with a tool error (epoch ms). */
  expiresAt?: number;
  /** The wait's id in its workflow (RunHandle.completeCallback finds it by tool call id). */
  callbackId?: string;
};

/** USER_MESSAGE: a user message was added to a running run (`enqueue`: read at the next turn; `interrupt`). */
export type UserMessageData = {
  messageId: string;
  text: string;
  mode: 'enqueue' | 'interrupt';
  by?: string;
};

/** STEP_RETRY: an earlier attempt of the step (or tool call) was lost; drop its partial output. */
export type StepRetryData = { reason: string };

/** MODEL_UNAVAILABLE: the model call keeps failing and is retried (times in epoch milliseconds). */
export type ModelUnavailableData = {
  reason: string;
  errorType: string;
  failingSince: number;
  nextAttemptAt: number;
};

/** One part of a step that compaction replaced with a reference (get_tool_result reads it back by `ref`). */
export type CompactedPartData = {
  stepIndex: number;
  toolCallId: string;
  part: 'output' | 'arguments';
  bytes: number;
  ref: string;
};

/** CONTEXT_COMPACTED: large parts of the conversation swapped for references. */
export type ContextCompactedData = {
  items: CompactedPartData[];
  bytesBefore: number;
  bytesAfter: number;
  threshold: number;
};

/** CONTEXT_CONDENSED: steps `fromStep` to `toStep` (exclusive) replaced by a summary the model wrote. */
export type ContextCondensedData = {
  fromStep: number;
  toStep: number;
  round: number;
  summary: string;
  bytesBefore: number;
  bytesAfter: number;
  threshold: number;
};

/** ERROR: something went wrong that did not end the run (a failed condensation, a parallel branch that failed). */
export type ErrorEventData = { error: EventError; branch?: string };

/**
 * The fields each event type adds to the envelope: its `data`, and for steps the step's id, attempt, text pieces
 * (STEP_DELTA) or the whole step (STEP_COMPLETED).
 */
export type EventFields = {
  RUN_STARTED: { data: RunStartedData };
  STEP_DELTA: { stepId: string; delta: StepDelta; data?: undefined };
  STEP_COMPLETED: { stepId: string; snapshot: Step; data?: undefined };
  RUN_COMPLETED: { data: RunCompletedData };
  RUN_FAILED: { data: RunFailedData };
  RUN_CANCELLED: { data: RunCancelledData };
  RUN_PAUSED: { data: ControlEventData };
  RUN_RESUMED: { data: ControlEventData };
  AGENT_STATE: { data: AgentStateData };
  TOOL_AUTH_REQUIRED: { data: ToolAuthRequiredData };
  TOOL_AUTH_GRANTED: { data: ToolAuthGrantedData };
  TOOL_AUTH_DENIED: { data: ToolAuthDeniedData };
  TOOL_AUTH_EXPIRED: { data: ToolAuthExpiredData };
  TOOL_CALLBACK_WAITING: { data: ToolCallbackWaitingData };
  USER_MESSAGE: { data: UserMessageData };
  STEP_RETRY: { stepId: string; attempt: number; data: StepRetryData };
  MODEL_UNAVAILABLE: { stepId: string; attempt: number; data: ModelUnavailableData };
  CONTEXT_COMPACTED: { data: ContextCompactedData };
  CONTEXT_CONDENSED: { data: ContextCondensedData };
  ERROR: { data: ErrorEventData };
};
