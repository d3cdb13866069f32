// The callModel activity's contract: what a workflow hands a model call and what it gets back (activities/model/
// implements it). Plain JSON, recorded in the run's history: a field added here is optional, for runs started before
// it.
import type { CallBudget } from '../budgets';
import type { EventBase } from '../events';
import type { OutputCheck, OutputFormat } from '../output-schema';
import type { ModelSettings } from '../specs';
import type { ChatMessage, Step, Usage } from '../steps';
import type { HandOffInput } from './persistence';

/** Input of callModel. */
export interface CallModelInput {
  runId: string;
  rootRunId: string;
  /** The run's tenant (runs started before it was sent send none). */
  tenant?: string;
  stepId: string;
  stepIndex: number;
  model?: string;
  modelSettings?: ModelSettings;
  /** The conversation, when small enough to travel in the input (limits.inlineModelInputBytes)… */
  messages?: ChatMessage[];
  /** …else where to read it: the first `count` messages of that workflow execution (its `conversation` Query)… */
  conversation?: { workflowId: string; runId: string; count: number };
  /** …or, for runs started since the message store, its changes since the previous call (the rest is stored). */
  stored?: StoredConversationInput;
  /** Names of the worker tools offered in this call (empty: a call without tools, e.g. the final summary). */
  tools: string[];
  /**
   * Tools the workflow runs itself (agents as tools, exit_loop); without `parameters` they take the delegation
   * arguments.
   */
  agentTools?: { name: string; description: string; parameters?: Record<string, unknown> }[];
  /** Envelope of the run's events; with `streamDeltas` the call publishes STEP_DELTA events into the root's Wire. */
  eventBase?: EventBase;
  streamDeltas?: boolean;
  /** The run's maxModelOutputBytes (runs started before it existed send none: the default applies). */
  maxOutputBytes?: number;
  /** The run's modelStreamIdleMs (likewise). */
  streamIdleMs?: number;
  /** Steps the run committed since its last write, stored before the model is called (see persistingFirst). */
  persist?: HandOffInput;
  /**
   * The agent's output schema: sent as response_format (where the provider takes it), and a final answer is checked.
   */
  outputFormat?: OutputFormat;
  /**
   * Runs started since the cost budgets: check the tree's and the tenant's spend first (see
   * activities/budget-check.ts).
   */
  budget?: CallBudget;
}

/** Output of callModel: the assistant step, ready to commit. */
export interface CallModelOutput {
  step: Step;
  usage: Usage;
  finishReason: string | null;
  /** With an `outputFormat`, for a final answer (no tool calls): how it matched the schema. */
  outputCheck?: OutputCheck;
}

/** The conversation part of a callModel input whose conversation is kept in the message store. */
export interface StoredConversationInput {
  tenant: string;
  /** The workflow execution (its Temporal run id) whose conversation this is: continue-as-new starts another. */
  runId: string;
  /** This write's version, one more than the run's previous write's: a position keeps its newest version. */
  version: number;
  /** The version of the run's last whole write: a stored message older than it is not this conversation's. */
  base: number;
  /** How many messages the conversation has. */
  count: number;
  /** The messages that changed since the run's last write it knows stored, as runs of consecutive positions. */
  changed: { at: number; messages: ChatMessage[] }[];
  /**
   * Attempts of an earlier call of this step that may have streamed deltas (one that failed with
   * ConversationNotStored on a later attempt): this call's attempts are numbered after them, so its first one
   * announces STEP_RETRY and readers drop their partial text.
   */
  attemptsBefore?: number;
}
