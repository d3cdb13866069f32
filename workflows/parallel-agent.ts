// The parallel agent: all sub-agents at once, each on its own copy (branch) of the state and an equal share of
// what is left of the token budget; results are gathered in sub-agent order. A failing branch is reported in
// its slot without losing the others.
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { Escalation, RunOutput, WorkflowAgentRunInput } from '../common';
import { applyOutput, runSubAgent } from './sub-agents';
import { failureMessage } from './run-errors';
import { addRunUsage, runWorkflowAgent } from './workflow-agent';

/** Runs a parallel agent. */
export async function parallelAgentRun(raw: WorkflowAgentRunInput): Promise<RunOutput> {
  return runWorkflowAgent(raw, async (run) => {
    const { spec, context, control, events, input } = run;
    await control.safePoint();
    await events.emit({ type: 'AGENT_STATE', data: { branches: spec.subAgents.map((a) => a.name) } });
    const branches = await Promise.all(
      spec.subAgents.map(async (sub, i) => {
        try {
          const out = await runSubAgent({
            parent: context,
            spec: sub,
            input: input.input,
            state: { ...run.state },
            childId: `${context.runId}/branch/${i}-${sub.name}`,
            control,
            spentTokens: run.usage.totalTokens,
            shares: spec.subAgents.length,
          });
          return { sub, out };
        } catch (err) {
          if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
          return { sub, error: failureMessage(err) };
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
    const failed = branches.filter((b) => !b.out).length;
    return {
      response: parts.join('\n\n'),
      terminationReason: escalation ? 'escalated' : failed === branches.length ? 'error' : 'completed',
      ...(escalation ? { escalation } : {}),
    };
  });
}
