// Activity handles of the agent loop: callModel with the run's retry and timeout limits, resolveTools, and
// how a model call that cannot succeed fails the run with a clear, non-retried error.
import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import { ErrorType, NON_RETRYABLE_MODEL_ERRORS, jsonBytes, modelInputTooLargeMessage, type ChatMessage, type RunContext } from '../common';
import type { AgioActivities } from '../activities';
import { failureMessage } from './tool-calls';

/** Resolves tool names to the specs the workflow schedules them with. */
export const { resolveTools } = proxyActivities<AgioActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });

/** callModel with the run's limits: heartbeat and overall timeouts, bounded retries, no retry for 4xx. */
export function callModelActivity(context: RunContext): AgioActivities['callModel'] {
  const { limits } = context;
  return proxyActivities<AgioActivities>({
    startToCloseTimeout: limits.modelTimeoutMs,
    heartbeatTimeout: limits.modelHeartbeatTimeoutMs,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '60s',
      maximumAttempts: limits.modelMaxAttempts,
      nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
    },
  }).callModel;
}

/** Rethrows a failed model call as a non-retryable workflow failure that names the agent and the cause. */
export function failRun(agent: string, err: unknown): never {
  if (err instanceof ActivityFailure && !isCancellation(err)) {
    const cause = err.cause instanceof ApplicationFailure ? err.cause : undefined;
    throw ApplicationFailure.create({ type: cause?.type ?? 'ModelCallFailed', message: `model call for agent "${agent}" failed: ${failureMessage(err)}`, nonRetryable: true, cause: err });
  }
  throw err;
}

/**
 * Fails the run, before the call is scheduled, when its conversation is over maxModelInputBytes: an activity
 * input over Temporal's payload cap would fail every workflow task that tries to schedule it, for ever.
 */
export function assertModelInputFits(agent: string, messages: ChatMessage[], context: RunContext): void {
  const limit = context.limits.maxModelInputBytes;
  const bytes = jsonBytes(messages);
  // Limits carried over from runs started before this limit existed have no value for it.
  if (limit === undefined || bytes <= limit) return;
  throw ApplicationFailure.create({ type: ErrorType.ModelInputTooLarge, message: modelInputTooLargeMessage(`the conversation of agent "${agent}"`, bytes, limit), nonRetryable: true });
}
