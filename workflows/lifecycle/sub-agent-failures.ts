// What a workflow agent says when its sub-agents fail (docs/ARCHITECTURE.md, "Workflow agents and operator control"):
// a parallel agent whose every branch failed fails with SubAgentsFailed, one with some failed branches completes
// with status `completed_with_failures` and lists them; a sequence or loop fails with SubAgentsFailed naming the one.
import { ApplicationFailure, ChildWorkflowFailure, isCancellation, patched } from '@temporalio/workflow';
import { ErrorType, type AnyAgentSpec, type SubAgentFailure } from '../../common';
import { errorSummary, failureMessage } from './run-errors';

/**
 * The patch under which workflow agents report failed sub-agents: a parallel agent fails when all its branches failed
 * and lists the failed ones when some did (it used to complete either way), and a sequence or loop fails with
 * SubAgentsFailed naming the sub-agent (it used to fail with the bare child-workflow failure).
 */
export const SUB_AGENT_FAILURES_PATCH = 'agio-sub-agent-failures';

/** A sub-agent's failure as the run reports it: the child's own error type and innermost message. */
export function subAgentFailure(spec: AnyAgentSpec, childId: string, err: unknown): SubAgentFailure {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  const runId = (err instanceof ChildWorkflowFailure ? err.execution.workflowId : undefined) ?? childId;
  return { agent: spec.name, runId, error: { type: errorSummary(cause ?? err).type, message: failureMessage(err) } };
}

/** The error a workflow agent fails with when its sub-agents failed (`of`: how many sub-agents it ran). */
export function subAgentsFailed(failures: SubAgentFailure[], of: number): ApplicationFailure {
  const list = failures.map((f) => `${f.agent} (${f.runId}): ${f.error.message}`).join('; ');
  const what =
    of === 1 || failures.length === 1 ? `sub-agent ${failures[0].agent} failed` : `all ${of} sub-agents failed`;
  return ApplicationFailure.create({
    type: ErrorType.SubAgentsFailed,
    nonRetryable: true,
    message: `${what}: ${list}`,
    details: [{ failures }],
  });
}

/** The failed sub-agents an error carries (a SubAgentsFailed error's details), for the RUN_FAILED event. */
export function failuresOf(err: unknown): { failures: SubAgentFailure[] } | undefined {
  if (!(err instanceof ApplicationFailure) || err.type !== ErrorType.SubAgentsFailed) return undefined;
  const details = err.details?.[0] as { failures?: SubAgentFailure[] } | undefined;
  return details?.failures ? { failures: details.failures } : undefined;
}

/**
 * Rethrows a sequence's or loop's failed sub-agent as SubAgentsFailed naming it (see SUB_AGENT_FAILURES_PATCH);
 * a cancellation goes on as it is.
 */
export function failedSubAgent(spec: AnyAgentSpec, childId: string, err: unknown): never {
  if (isCancellation(err) || !patched(SUB_AGENT_FAILURES_PATCH)) throw err;
  throw subAgentsFailed([subAgentFailure(spec, childId, err)], 1);
}
