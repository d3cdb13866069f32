// A run's context, input and output: the plain JSON that crosses the agentRun workflow boundary.
import { z } from 'zod';
import { RunLimitOverrides, RunLimits } from './limits';
import { PermissionRule } from './permissions';
import { AgentSpec } from './specs';
import { Escalation, LoopPosition, WorkflowAgentSpec } from './workflow-agents';
import { ChatMessage, Step, Usage } from './steps';
import { RunOrigin, RunSeed } from './run-origin';

/** Who and where a run is: identity, nesting, session, tracing, workspace and limits. */
export const RunContext = z.object({
  /** This run's id (its workflow id). */
  runId: z.string(),
  /** The root run's workflow id: the owner of the event log. */
  rootRunId: z.string(),
  parentRunId: z.string().optional(),
  depth: z.number().int().nonnegative().default(0),
  /** Agent names from the root down to this run (cycle detection). */
  lineage: z.array(z.string()).default([]),
  /** The parent's tool call that started this run. */
  toolCallId: z.string().optional(),
  sessionId: z.string().optional(),
  userId: z.string().optional(),
  tenant: z.string().default('default'),
  traceId: z.string().optional(),
  spanId: z.string().optional(),
  /** Workspace directory relative to the worker's workspace root. */
  workspace: z.string(),
  limits: RunLimits,
  /** `none`: publish only this run's start, end and approval events (an AgentTool with `stream: 'none'`). */
  stream: z.enum(['full', 'none']).default('full'),
  /** How this run was started by its parent. */
  nestingType: z.enum(['agent_tool', 'workflow_agent']).optional(),
  /** Permission rules for this run, checked before the agent's own (overrides per run; inherited by nested runs). */
  permissions: z.array(PermissionRule).optional(),
  /**
   * The tree's nested runs keep their own event logs (decided once, at the root's start, under the patch
   * `agio-nested-event-logs`, and handed down): a parent's log then holds only their starts and ends.
   */
  ownLogs: z.boolean().optional(),
});
/** Who and where a run is. */
export type RunContext = z.infer<typeof RunContext>;

/**
 * The context a caller (or a parent run) passes in: any subset of RunContext with nothing filled in, so the
 * workflow can tell what was given (e.g. `lineage`) from what it must derive, and limits stay overrides.
 */
export const RunContextInput = RunContext.extend({
  depth: RunContext.shape.depth.removeDefault(),
  lineage: RunContext.shape.lineage.removeDefault(),
  tenant: RunContext.shape.tenant.removeDefault(),
  limits: RunLimitOverrides,
}).partial();
/** The context a caller passes in. */
export type RunContextInput = z.infer<typeof RunContextInput>;

/** What an agent run carries across continue-as-new. */
/** What a run's approvals carry across continue-as-new. */
export const ApprovalsCarried = z.object({
  remembered: z.array(PermissionRule),
  decided: z.array(z.string()),
});
export type ApprovalsCarried = z.infer<typeof ApprovalsCarried>;

export const AgentRunResume = z.object({
  steps: z.array(Step),
  usage: Usage,
  ownUsage: Usage,
  modelCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  toolErrors: z.number().int().nonnegative(),
  startedAt: z.number(),
  /** The Wire's state (root runs only), so stream offsets stay continuous. */
  wire: z.unknown().optional(),
  /** The session's earlier conversation the run started from. */
  history: z.array(ChatMessage).optional(),
  /** The Wire offset up to which the root has written its events to the event log (root runs only). */
  loggedOffset: z.number().int().optional(),
  /** Approvals that outlive a turn: rules an operator asked to remember, and the latest calls already decided. */
  approvals: ApprovalsCarried.optional(),
  /** Set when the run continued as new while paused (to move to a new worker version): the new run starts parked. */
  paused: z.object({ reason: z.string().optional(), by: z.string().optional() }).optional(),
  /**
   * Callback tool calls already finished (completed or timed out), so a late or second result is told why
   * (callbacks.ts).
   */
  callbacks: z.object({ finished: z.array(z.tuple([z.string(), z.enum(['completed', 'expired'])])) }).optional(),
  /** Agents with an output schema: repair turns used so far, and how many the run allows (fixed at its start). */
  outputRepairs: z.object({ used: z.number().int().nonnegative(), allowed: z.number().int().nonnegative() }).optional(),
  /** User messages not read yet, and the latest accepted message ids (workflows/lifecycle/user-messages.ts). */
  messages: z
    .object({
      queued: z.array(
        z.object({
          messageId: z.string(),
          text: z.string(),
          mode: z.enum(['enqueue', 'interrupt']),
          by: z.string().optional(),
        }),
      ),
      seen: z.array(z.string()),
    })
    .optional(),
});
/** What an agent run carries across continue-as-new. */
export type AgentRunResume = z.infer<typeof AgentRunResume>;

/** Input of the agentRun workflow. */
export const AgentRunInput = z.object({
  agent: AgentSpec,
  /** The user's message, or a prepared conversation (e.g. a delegation context). */
  input: z.union([z.string(), z.array(ChatMessage)]),
  /** Filled from the workflow's own id when absent (a root run). */
  context: RunContextInput.optional(),
  /** Values for `{key}` placeholders in the instructions. */
  state: z.record(z.string(), z.unknown()).optional(),
  /** Set by the run itself when it continues as new. */
  resume: AgentRunResume.optional(),
  /** A retry or fork: the steps the run starts from instead of its instructions and input (common/run-origin.ts). */
  seed: RunSeed.optional(),
});
/** Input of the agentRun workflow. */
export type AgentRunInput = z.input<typeof AgentRunInput>;

/** What a workflow agent carries across continue-as-new. */
export const WorkflowAgentResume = z.object({
  position: LoopPosition,
  usage: Usage,
  startedAt: z.number(),
  wire: z.unknown().optional(),
  lastResponse: z.string(),
  /** The Wire offset up to which the root has written its events to the event log (root runs only). */
  loggedOffset: z.number().int().optional(),
  /** Set when a loop continued as new while paused (to move to a new worker version): the new run starts parked. */
  paused: z.object({ reason: z.string().optional(), by: z.string().optional() }).optional(),
});

/** Input of the loop, sequential and parallel agent workflows. */
export const WorkflowAgentRunInput = z.object({
  agent: WorkflowAgentSpec,
  input: z.union([z.string(), z.array(ChatMessage)]),
  context: RunContextInput.optional(),
  /** The shared key-value state (sub-agents read `{key}`, write their `outputKey`). */
  state: z.record(z.string(), z.unknown()).optional(),
  /** Loops: start here instead of at the beginning (ADK LoopAgent's resume; for terminated or reset runs). */
  resumeFrom: LoopPosition.optional(),
  /** Set by the loop itself when it continues as new. */
  resume: WorkflowAgentResume.optional(),
});
/** Input of the workflow-agent workflows. */
export type WorkflowAgentRunInput = z.input<typeof WorkflowAgentRunInput>;

/** Why a run stopped. */
export const TerminationReason = z.enum([
  'completed',
  'max_steps',
  'max_tokens',
  'max_iterations',
  'escalated',
  'cancelled',
  'error',
]);
/** Why a run stopped. */
export type TerminationReason = z.infer<typeof TerminationReason>;

/** Counters of a run. */
export const RunMetrics = z.object({
  steps: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  toolErrors: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
});
/** Counters of a run. */
export type RunMetrics = z.infer<typeof RunMetrics>;

/** A sub-agent of a workflow agent that failed: its name, run id and error. */
export const SubAgentFailure = z.object({
  agent: z.string(),
  runId: z.string(),
  error: z.object({ type: z.string(), message: z.string() }),
});
/** A sub-agent of a workflow agent that failed. */
export type SubAgentFailure = z.infer<typeof SubAgentFailure>;

/** Result of a run. */
export const RunOutput = z.object({
  /** The final answer as the model wrote it (with an output schema: its JSON text). */
  response: z.string(),
  /**
   * Agents with an output schema: the final answer parsed, matching the schema. Absent when the run stopped without a
   * final answer (its token budget, an `exit_loop` escalation).
   */
  output: z.json().optional(),
  runId: z.string(),
  sessionId: z.string().optional(),
  /** Usage of this run and every nested run. */
  usage: Usage,
  metrics: RunMetrics,
  terminationReason: TerminationReason,
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  /**
   * The run's steps (its own conversation, not nested runs'); empty when they are too large to return, and for a nested
   * run (its parent reads only its response, output and usage), see `stepsOmitted`.
   */
  steps: z.array(Step),
  /**
   * Set (to the number of steps) when the steps are not returned (a nested run, or steps that would have taken the
   * output past what one Temporal payload can carry): they are in the run's stored steps (the stores) instead.
   */
  stepsOmitted: z.number().int().positive().optional(),
  /** Set when the run asked enclosing workflow agents to stop (exit_loop, or `escalate: true` in its output). */
  escalation: Escalation.optional(),
  /** Workflow agents: the shared state after the run. */
  state: z.record(z.string(), z.unknown()).optional(),
  /**
   * Parallel agents that completed although some of their sub-agents failed (status `completed_with_failures`): those
   * sub-agents, in order. (When all fail, the run fails with `SubAgentsFailed`; a sequence or loop fails with the
   * first.)
   */
  failures: z.array(SubAgentFailure).optional(),
});
/** Result of a run. */
export type RunOutput = z.infer<typeof RunOutput>;
/** Result of a run of an agent whose output schema has the type `T` (see `TypedAgentSpec`). */
export type RunOutputOf<T> = Omit<RunOutput, 'output'> & { output?: T };

/**
 * The memo stored on every run: its tenant (the bridge scopes every lookup to it) and agent; a nested run also names
 * its root, whose log holds its events. Runs started with a caller-chosen id keep the fingerprint of the request that
 * started them (see client/idempotent-start.ts).
 */
export const RunMemo = z.object({
  tenant: z.string(),
  agent: z.string(),
  rootRunId: z.string().optional(),
  fingerprint: z.string().optional(),
  /** A nested run that keeps its own event log (see RunContext.ownLogs): readers read its events there. */
  ownLog: z.literal(true).optional(),
  /** A retry or fork: the run it was made from (common/run-origin.ts). */
  origin: RunOrigin.optional(),
});
/** The memo stored on every run. */
export type RunMemo = z.infer<typeof RunMemo>;
