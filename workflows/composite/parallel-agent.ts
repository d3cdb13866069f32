// The parallel agent: all sub-agents at once, each on its own copy (branch) of the state and an equal share of
// what is left of the token budget; results are gathered in sub-agent order. A failing branch is reported in
// its slot without losing the others; the run fails only when every branch did (see sub-agent-failures.ts).
import { CancellationScope, isCancellation, patched } from '@temporalio/workflow';
import type { Escalation, RunOutput, WorkflowAgentRunInput } from '../../common';
import { applyOutput, runSubAgent } from '../nesting/sub-agents';
import { failureMessage } from '../lifecycle/run-errors';
import { SUB_AGENT_FAILURES_PATCH, subAgentFailure, subAgentsFailed } from '../lifecycle/sub-agent-failures';
import { addRunUsage, runWorkflowAgent } from './workflow-agent';

/** Runs a parallel agent. */
export async function parallelAgentRun(raw: WorkflowAgentRunInput): Promise<RunOutput> {
  return runWorkflowAgent(raw, async (run) => {
    const { spec, context, control, events, request } = run;
    await control.safePoint();
    await events.emit({ type: 'AGENT_STATE', data: { branches: spec.subAgents.map((a) => a.name) } });
    const branches = await Promise.all(
      spec.subAgents.map(async (sub, i) => {
        const childId = `${context.runId}/branch/${i}-${sub.name}`;
        try {
          const out = await runSubAgent({
            parent: context,
            spec: sub,
            input: request.input,
            state: { ...run.state },
            childId,
            control,
            spentTokens: run.usage.totalTokens,
            shares: spec.subAgents.length,
          });
          return { sub, out };
        } catch (err) {
          if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
          const failure = subAgentFailure(sub, childId, err);
          // The state query shows failed branches while the others still run (see SUB_AGENT_FAILURES_PATCH).
          if (patched(SUB_AGENT_FAILURES_PATCH)) run.failures = [...(run.failures ?? []), failure];
          return { sub, error: failureMessage(err), failure };
        }
      }),
    );
    const parts: string[] = [];
    let escalation: Escalation | undefined;
    for (const branch of branches) {
      if (branch.out) {
        addRunUsage(run, branch.out.usage);
        run.state = applyOutput(run.state, branch.sub, branch.out);
        escalation ??= branch.out.escalation;
        parts.push(`[${branch.sub.name}]\n${branch.out.response}`);
      } else {
        await events.emit({ type: 'ERROR', data: { branch: branch.sub.name, error: branch.error } });
        parts.push(`[${branch.sub.name}]\n${JSON.stringify({ unavailable: true, error: branch.error })}`);
      }
    }
    const failures = branches.flatMap((b) => (b.failure ? [b.failure] : []));
    // Failed branches are reported (see SUB_AGENT_FAILURES_PATCH): all failed fails the run, some are listed.
    const reported = failures.length > 0 && patched(SUB_AGENT_FAILURES_PATCH);
    if (reported && failures.length === branches.length) throw subAgentsFailed(failures, branches.length);
    if (reported) run.failures = failures;
    return {
      response: parts.join('\n\n'),
      terminationReason: escalation ? 'escalated' : failures.length === branches.length ? 'error' : 'completed',
      ...(escalation ? { escalation } : {}),
      ...(reported ? { failures } : {}),
    };
  });
}
