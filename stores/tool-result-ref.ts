// The ref of a stored tool result: derived from runId and toolCallId alone, so a retried put lands on the
// same record and returns the same ref.
import { createHash } from 'node:crypto';

const REF_PATTERN = /^tr_[0-9a-f]{32}$/;

/** The ref of the full result of one tool call, e.g. `tr_3f2a…` (35 characters). */
export function toolResultRef(runId: string, toolCallId: string): string {
  return 'tr_' + createHash('sha256').update(runId).update('\0').update(toolCallId).digest('hex').slice(0, 32);
}

/** True for a string shaped like a ref; anything else cannot name a stored result. */
export function isToolResultRef(value: unknown): value is string {
  return typeof value === 'string' && REF_PATTERN.test(value);
}
