// The ref of a stored tool result: derived from runId, toolCallId and the call's step alone, so a retried put lands on
// the same record and returns the same ref.
import { createHash } from 'node:crypto';

const REF_PATTERN = /^tr_[0-9a-f]{32}$/;

/**
 * The ref of the full result of one tool call, e.g. `tr_3f2a…` (35 characters). The step tells apart two calls of one
 * run with the same id (providers that number their calls afresh every turn); without it, the ref of earlier releases.
 */
export function toolResultRef(runId: string, toolCallId: string, stepId?: string): string {
  const hash = createHash('sha256').update(runId).update('\0').update(toolCallId);
  if (stepId !== undefined) hash.update('\0').update(stepId);
  return 'tr_' + hash.digest('hex').slice(0, 32);
}

/** True for a string shaped like a ref; anything else cannot name a stored result. */
export function isToolResultRef(value: unknown): value is string {
  return typeof value === 'string' && REF_PATTERN.test(value);
}
