// The sequential agent: its sub-agents once, in order, each seeing the state the earlier ones wrote. An
// escalation stops it and travels up to the nearest loop (a sequence is not a loop).
import type { RunOutput, WorkflowAgentRunInput } from '../../common';
import { spentBudget } from '../agent-loop/decisions';
import { runSubAgentInTurn, runWorkflowAgent } from './workflow-agent';

/** Runs a sequential agent. */
export async function sequentialAgentRun(raw: WorkflowAgentRunInput): Promise<RunOutput> {
  return runWorkflowAgent(raw, async (run) => {
    const { spec, context, control, events } = run;
    let response = '';
    for (const [i, sub] of spec.subAgents.entries()) {
      run.progress = { currentSubAgent: sub.name, currentSubAgentIndex: i };
      await control.safePoint();
      await events.emit({ type: 'AGENT_STATE', data: { currentSubAgent: sub.name, currentSubAgentIndex: i } });
      const childId = `${context.runId}/seq/${i}-${sub.name}`;
      const out = await runSubAgentInTurn(run, sub, childId);
      response = out.response;
      if (out.escalation) return { response, terminationReason: 'escalated', escalation: out.escalation };
      if (spentBudget(run.usage, context.limits) && i < spec.subAgents.length - 1)
        return { response, terminationReason: 'max_tokens' };
    }
    return { response, terminationReason: 'completed' };
  });
}
