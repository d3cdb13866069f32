// Activity handles of the agent loop: callModel with the run's retry and timeout limits, resolveTools, and
// how a model call that cannot succeed fails the run with a clear, non-retried error.
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import {
  ErrorType,
  MODEL_RETRY_MAX_INTERVAL_MS,
  NON_RETRYABLE_MODEL_ERRORS,
  jsonBytes,
  modelInputTooLargeMessage,
  type ChatMessage,
  type RunContext,
} from '../../common';
import type { ConversationWrites } from '../conversation/conversation-writes';
import { failureMessage } from '../lifecycle/run-errors';
import type { AgioActivities } from '../../common/contracts/activities';
import type { CallModelInput } from '../../common/contracts/model-call';

/**
 * The patch of the leaner step path: a run resolves its tools with a local activity (no server round trip before
 * its first model call), and a turn's steps ride on the next model call instead of a local write of their own.
 * Runs started before it replay the activities and writes they recorded.
 */
export const LEAN_STEPS_PATCH = 'agio-lean-steps';

/**
 * The patch under which a failing model call is retried for the run's whole retry window (modelRetryWindowMs) rather
 * than a few times. Runs started before it keep the attempt cap they started with, and carry it to their children.
 */
export const MODEL_RETRY_WINDOW_PATCH = 'agio-model-retry-window';
const LEGACY_MODEL_MAX_ATTEMPTS = 6;

/** The run's context, with the attempt cap of runs started before {@link MODEL_RETRY_WINDOW_PATCH} made explicit. */
export function withModelRetryLimits(context: RunContext): RunContext {
  if (patched(MODEL_RETRY_WINDOW_PATCH)) return context;
  return {
    ...context,
    limits: { ...context.limits, modelMaxAttempts: context.limits.modelMaxAttempts ?? LEGACY_MODEL_MAX_ATTEMPTS },
  };
}

const RESOLVE_TOOLS = { startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } } as const;
/**
 * Resolves tool names to the specs the workflow schedules them with: a local activity, or (runs started before {@link
 * LEAN_STEPS_PATCH}) an activity.
 */
export const resolveToolsWith = (local: boolean) =>
  (local ? proxyLocalActivities<AgioActivities>(RESOLVE_TOOLS) : proxyActivities<AgioActivities>(RESOLVE_TOOLS))
    .resolveTools;

/**
 * callModel with the run's limits: heartbeat and per-attempt timeouts, retries with capped backoff for as long as the
 * run's retry window (runs started before it existed carry their attempt cap instead), no retry for 4xx.
 */
export function callModelActivity(context: RunContext): AgioActivities['callModel'] {
  const { limits } = context;
  return proxyActivities<AgioActivities>({
    startToCloseTimeout: limits.modelTimeoutMs,
    heartbeatTimeout: limits.modelHeartbeatTimeoutMs,
    ...(limits.modelRetryWindowMs ? { scheduleToCloseTimeout: limits.modelRetryWindowMs } : {}),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: MODEL_RETRY_MAX_INTERVAL_MS,
      ...(limits.modelMaxAttempts ? { maximumAttempts: limits.modelMaxAttempts } : {}), // unset: no cap
      nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
    },
  }).callModel;
}

/** Rethrows a failed model call as a non-retryable workflow failure that names the agent and the cause. */
export function failRun(agent: string, err: unknown): never {
  if (err instanceof ActivityFailure && !isCancellation(err)) {
    const cause = err.cause instanceof ApplicationFailure ? err.cause : undefined;
    throw ApplicationFailure.create({
      type: cause?.type ?? ErrorType.ModelCallFailed,
      message: `model call for agent "${agent}" failed: ${failureMessage(err)}`,
      nonRetryable: true,
      cause: err,
    });
  }
  throw err;
}

/**
 * The conversation part of a callModel input. Fails the run, before the call is scheduled, when the
 * conversation (`bytes` long, as JSON) is over maxModelInputBytes (the model would refuse it, and a payload over
 * Temporal's cap would fail every workflow task that tries to schedule it, for ever). Up to inlineModelInputBytes it
 * travels in the input; above, only its messages that changed since the last call travel, and the activity reads the
 * rest from the message store (`writes`, see conversation-writes.ts), so the history does not record the whole
 * conversation again at every step. Runs started before the store (no `writes`) name it instead: the activity reads
 * this run's first `count` messages with the conversation Query.
 */
export function conversationForCall(
  agent: string,
  messages: ChatMessage[],
  context: RunContext,
  bytes = jsonBytes(messages),
  writes?: ConversationWrites,
): Pick<CallModelInput, 'messages' | 'conversation' | 'stored'> {
  const { maxModelInputBytes: limit, inlineModelInputBytes: inline } = context.limits;
  // Limits carried over from runs started before a limit existed have no value for it.
  if (limit !== undefined && bytes > limit) {
    throw ApplicationFailure.create({
      type: ErrorType.ModelInputTooLarge,
      message: modelInputTooLargeMessage(`the conversation of agent "${agent}"`, bytes, limit),
      nonRetryable: true,
    });
  }
  if (inline === undefined || bytes <= inline) return { messages };
  if (writes) return { stored: writes.next(messages, context.tenant) };
  const { workflowId, runId } = workflowInfo();
  return { conversation: { workflowId, runId, count: messages.length } };
}
