// Default bounds for every run (docs/ARCHITECTURE.md, "Long-lived runs"): each has a default and a clear error when
// hit.
import { z } from 'zod';

/** Limits in force for a run; carried in its context and inherited by nested runs. */
export const RunLimits = z.object({
  /** Model calls with tools before the run is asked to summarise (then terminationReason = 'max_steps'). */
  maxSteps: z.number().int().positive().default(10),
  /** Nesting depth of agents used as tools. */
  maxDepth: z.number().int().positive().default(5),
  /** Tool output kept inline in the conversation and history; larger outputs are truncated. */
  maxToolOutputBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /**
   * Largest conversation (UTF-8 bytes of its JSON) sent in one model call; a run input over it is refused at
   * start, and a conversation that grows over it fails the run with ModelInputTooLarge before the call is made.
   * Temporal caps one payload at 2 MiB, so the default leaves room for the rest of the call's input.
   */
  maxModelInputBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /**
   * When the conversation passes this size (UTF-8 bytes of its JSON), it is compacted before the next model call:
   * older tool outputs and tool-call arguments (written file contents) are stored and replaced with references the
   * model can read back with get_tool_result, oldest first, until it is down to two thirds of this size. Absent: three
   * quarters of maxModelInputBytes. What cannot be compacted (the input, the newest turn) still ends the run with
   * ModelInputTooLarge when it passes maxModelInputBytes.
   */
  compactModelInputBytes: z.number().int().positive().optional(),
  /**
   * Largest model answer (text, reasoning and tool calls) one step may hold. An answer that grows past it is cut off
   * and fails the run with ModelOutputTooLarge, never retried: a step over Temporal's 2 MiB payload cap could never
   * be recorded, and every retry would pay for the whole answer again.
   */
  maxModelOutputBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /**
   * Conversations up to this size (UTF-8 bytes of their JSON) travel inside the callModel activity input. A larger
   * one stays in the workflow, and the activity reads it with the run's `conversation` Query, so a step's share
   * of the history stops growing with the conversation (a claim check). 0: always by Query.
   */
  inlineModelInputBytes: z
    .number()
    .int()
    .nonnegative()
    .default(8 * 1024),
  /** Total tokens (prompt + completion) the run may spend before it stops with 'max_tokens'. */
  maxTotalTokens: z.number().int().positive().optional(),
  /**
   * How long a model call may go without a heartbeat before Temporal retries it elsewhere: a call lost with its worker
   * starts again on another one after about this long (plus a second's retry delay). The call heartbeats every 4 s,
   * or more often under a shorter timeout (activities/model/call-model.ts, heartbeatIntervalMs). 9 s by default:
   * failover within
   * about 9 s (tests/faults/model-heartbeats), with 5 s of room for a beat held up by a busy event loop (a 6 s timeout,
   * 2 s of room, timed calls out while their workers lived with 200 runs streaming on two cores:
   * tests/faults/many-runs).
   */
  modelHeartbeatTimeoutMs: z.number().int().positive().default(9_000),
  /**
   * How long a model call may go without a chunk (before the first one too) before the attempt is given up as stalled
   * and retried. Its heartbeat proves the worker alive, not the stream moving; this catches the stream.
   */
  modelStreamIdleMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Upper bound of one model call, streaming included. */
  modelTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /**
   * Attempts for a failing model call (rate limits, 5xx, network); unset, a call is retried until
   * modelRetryWindowMs has passed, so a provider outage is waited out. Non-retryable errors (4xx) fail at once.
   */
  modelMaxAttempts: z.number().int().positive().optional(),
  /** How long a model call may keep failing and retrying (its schedule-to-close) before the run fails. */
  modelRetryWindowMs: z
    .number()
    .int()
    .positive()
    .default(6 * 60 * 60_000),
  /** Continue as new after this many model calls in one workflow run (besides Temporal's own suggestion). */
  continueAsNewAfterModelCalls: z.number().int().positive().default(200),
  /**
   * US dollars the run's whole tree (every nested run included) may spend on priced model calls. Checked before each
   * model call: once spent, the run asking pauses (reason `budget`) until the budget is raised. Handed down unchanged.
   */
  maxCostUsd: z.number().positive().optional(),
});
/** Limits in force for a run. */
export type RunLimits = z.infer<typeof RunLimits>;

/**
 * Overrides of some limits (an agent's `limits`, a run's `context.limits`): the same fields with no defaults
 * filled in, so an override only replaces the limits it names and never resets the others to their defaults.
 */
export const RunLimitOverrides = z
  .object({
    maxSteps: RunLimits.shape.maxSteps.removeDefault(),
    maxDepth: RunLimits.shape.maxDepth.removeDefault(),
    maxToolOutputBytes: RunLimits.shape.maxToolOutputBytes.removeDefault(),
    maxModelInputBytes: RunLimits.shape.maxModelInputBytes.removeDefault(),
    compactModelInputBytes: RunLimits.shape.compactModelInputBytes,
    inlineModelInputBytes: RunLimits.shape.inlineModelInputBytes.removeDefault(),
    maxModelOutputBytes: RunLimits.shape.maxModelOutputBytes.removeDefault(),
    maxTotalTokens: RunLimits.shape.maxTotalTokens,
    modelHeartbeatTimeoutMs: RunLimits.shape.modelHeartbeatTimeoutMs.removeDefault(),
    modelTimeoutMs: RunLimits.shape.modelTimeoutMs.removeDefault(),
    modelStreamIdleMs: RunLimits.shape.modelStreamIdleMs.removeDefault(),
    modelMaxAttempts: RunLimits.shape.modelMaxAttempts,
    modelRetryWindowMs: RunLimits.shape.modelRetryWindowMs.removeDefault(),
    continueAsNewAfterModelCalls: RunLimits.shape.continueAsNewAfterModelCalls.removeDefault(),
    maxCostUsd: RunLimits.shape.maxCostUsd,
  })
  .partial();
/** Overrides of some limits. */
export type RunLimitOverrides = z.infer<typeof RunLimitOverrides>;

/** The limits with every default applied. */
export function resolveLimits(partial: Partial<RunLimits> = {}): RunLimits {
  return RunLimits.parse(partial);
}

/**
 * A run's limits, resolved once when it starts: the defaults, then the agent's `limits`, then its `maxSteps`, then the
 * run's own overrides. Clients resolve them before starting a run and send them whole, so a run keeps the defaults of
 * the code that started it even when a later release changes them; the run carries them across continue-as-new and
 * into the runs it starts.
 */
export function runLimitsFor(
  agent: { limits?: RunLimitOverrides; maxSteps?: number },
  overrides: Partial<RunLimits> = {},
): RunLimits {
  return resolveLimits({ ...agent.limits, ...(agent.maxSteps ? { maxSteps: agent.maxSteps } : {}), ...overrides });
}

/**
 * The highest value a caller may ask for, per limit. They bound new input only ({@link RunLimitRequest}): RunLimits and
 * RunLimitOverrides stay unbounded because running workflows parse the limits recorded in their history with them, and
 * a run started before a bound existed (or by trusted code with a larger value) must still parse on replay.
 */
export const RUN_LIMIT_MAXIMUMS = {
  maxSteps: 1000,
  maxDepth: 20,
  maxToolOutputBytes: 1024 * 1024,
  // Temporal caps one payload at 2 MiB: a conversation, an answer or an inline input over 1.5 MiB could not be
  // recorded.
  maxModelInputBytes: 1536 * 1024,
  compactModelInputBytes: 1536 * 1024,
  inlineModelInputBytes: 1024 * 1024,
  maxModelOutputBytes: 1536 * 1024,
  maxTotalTokens: 100_000_000,
  modelHeartbeatTimeoutMs: 10 * 60_000,
  modelStreamIdleMs: 60 * 60_000,
  modelTimeoutMs: 2 * 60 * 60_000,
  modelMaxAttempts: 100,
  modelRetryWindowMs: 7 * 24 * 60 * 60_000,
  continueAsNewAfterModelCalls: 1000,
  maxCostUsd: 1_000_000,
} as const satisfies Record<keyof RunLimitOverrides, number>;

const upTo = (max: number) => z.number().int().positive().max(max);

/**
 * A cost budget a caller asks for (a run's maxCostUsd, a raise, a tenant's daily budget): positive US dollars, bounded.
 */
export const CostUsdRequest = z
  .number({ message: 'a number of US dollars' })
  .positive('must be above 0')
  .max(RUN_LIMIT_MAXIMUMS.maxCostUsd, `at most ${RUN_LIMIT_MAXIMUMS.maxCostUsd} US dollars`);

/**
 * Limits a caller asks for when starting a run (the bridge's `POST /runs`): the overrides, each bounded by
 * {@link RUN_LIMIT_MAXIMUMS}, unknown names refused. Parsing new input only; recorded limits parse with
 * RunLimitOverrides.
 */
export const RunLimitRequest = z
  .object({
    maxSteps: upTo(RUN_LIMIT_MAXIMUMS.maxSteps),
    maxDepth: upTo(RUN_LIMIT_MAXIMUMS.maxDepth),
    maxToolOutputBytes: upTo(RUN_LIMIT_MAXIMUMS.maxToolOutputBytes),
    maxModelInputBytes: upTo(RUN_LIMIT_MAXIMUMS.maxModelInputBytes),
    compactModelInputBytes: upTo(RUN_LIMIT_MAXIMUMS.compactModelInputBytes),
    inlineModelInputBytes: z.number().int().nonnegative().max(RUN_LIMIT_MAXIMUMS.inlineModelInputBytes),
    maxModelOutputBytes: upTo(RUN_LIMIT_MAXIMUMS.maxModelOutputBytes),
    maxTotalTokens: upTo(RUN_LIMIT_MAXIMUMS.maxTotalTokens),
    modelHeartbeatTimeoutMs: upTo(RUN_LIMIT_MAXIMUMS.modelHeartbeatTimeoutMs),
    modelStreamIdleMs: upTo(RUN_LIMIT_MAXIMUMS.modelStreamIdleMs),
    modelTimeoutMs: upTo(RUN_LIMIT_MAXIMUMS.modelTimeoutMs),
    modelMaxAttempts: upTo(RUN_LIMIT_MAXIMUMS.modelMaxAttempts),
    modelRetryWindowMs: upTo(RUN_LIMIT_MAXIMUMS.modelRetryWindowMs),
    continueAsNewAfterModelCalls: upTo(RUN_LIMIT_MAXIMUMS.continueAsNewAfterModelCalls),
    maxCostUsd: CostUsdRequest,
  })
  .partial()
  .strict();
/** Limits a caller asks for when starting a run. */
export type RunLimitRequest = z.infer<typeof RunLimitRequest>;

/**
 * The largest `maxTokens` a caller may ask for in a run's model settings (an answer that long is about 1 MiB of text).
 */
export const MAX_TOKENS_PER_MODEL_CALL = 256_000;
