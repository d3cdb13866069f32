// The loop agent (after Google ADK's LoopAgent): each iteration runs every sub-agent in order as a child
// workflow; state { timesLooped, currentSubAgent } lives in workflow variables, so a crash, deploy or pause
// never loses it. Stops at maxIterations or when a sub-agent escalates; continues as new between iterations.
import { continueAsNew, makeContinueAsNewFunc, patched, workflowInfo } from '@temporalio/workflow';
import type { Escalation, LoopPosition, RunOutput, WorkflowAgentRunInput } from '../../common';
import { spentBudget } from '../agent-loop/decisions';
import { runSubAgentInTurn, runWorkflowAgent } from './workflow-agent';
import { UPGRADE_PATCH } from '../lifecycle/upgrade';

/**
 * The patch under which a loop continuing as new writes its event log before it waits for a safe point, so a pause that
 * arrives meanwhile parks it instead of being lost, and carries a pause into the new run when it moves to a newer
 * worker version while paused (as agent runs do, see CARRY_OVER_PATCH).
 */
export const LOOP_PAUSE_PATCH = 'agio-loop-carry-pause';

/** Runs a loop agent. */
export async function loopAgentRun(raw: WorkflowAgentRunInput): Promise<RunOutput> {
  return runWorkflowAgent(raw, async (run) => {
    const { spec, context, control, events, request } = run;
    // Loops started with it move to the current worker version between iterations (see UPGRADE_PATCH).
    const upgrades = patched(UPGRADE_PATCH);
    const max = spec.maxIterations ?? 0;
    const position: LoopPosition = {
      ...(request.resume?.position ?? request.resumeFrom ?? { timesLooped: 0, currentSubAgent: 0 }),
    };
    const startedAt = position.timesLooped;
    let response = request.resume?.lastResponse ?? '';
    let escalation: Escalation | undefined;
    while (max === 0 || position.timesLooped < max) {
      for (let i = position.currentSubAgent; i < spec.subAgents.length; i++) {
        const sub = spec.subAgents[i];
        position.currentSubAgent = i;
        run.progress = { timesLooped: position.timesLooped, currentSubAgent: sub.name, currentSubAgentIndex: i };
        await control.safePoint();
        await events.emit({
          type: 'AGENT_STATE',
          data: { timesLooped: position.timesLooped, currentSubAgent: sub.name, currentSubAgentIndex: i },
        });
        const childId = `${context.runId}/loop-${position.timesLooped}/${i}-${sub.name}`;
        const out = await runSubAgentInTurn(run, sub, childId);
        response = out.response;
        if (out.escalation) {
          escalation = out.escalation;
          break;
        }
        if (spentBudget(run.usage, context.limits)) return { response, terminationReason: 'max_tokens' };
      }
      if (escalation) break;
      position.timesLooped++;
      position.currentSubAgent = 0;
      run.progress = { timesLooped: position.timesLooped };
      const every = spec.continueAsNewEvery;
      const more = max === 0 || position.timesLooped < max;
      if (
        workflowInfo().continueAsNewSuggested ||
        (every && position.timesLooped - startedAt >= every && more) ||
        (upgrades && more && control.upgradeWanted())
      ) {
        // Between iterations no child or activity is in flight: park here if paused, and let handlers finish so no
        // event batch is lost. With LOOP_PAUSE_PATCH the log is written first, so nothing awaits between the park and
        // the continue-as-new (a pause that came during the write used to be lost), and a paused loop moving to a
        // newer worker version carries its pause.
        const carriesPause = patched(LOOP_PAUSE_PATCH);
        if (carriesPause) {
          await run.eventLog?.writeLocally();
          await control.beforeContinueAsNew(upgrades ? control.upgradeWanted : undefined);
        } else {
          await control.beforeContinueAsNew();
          await run.eventLog?.writeLocally();
        }
        const paused = carriesPause ? control.carriedPause() : undefined;
        await (
          upgrades
            ? makeContinueAsNewFunc<typeof loopAgentRun>({ initialVersioningBehavior: 'AUTO_UPGRADE' })
            : continueAsNew<typeof loopAgentRun>
        )({
          ...request,
          state: run.state,
          resumeFrom: undefined,
          resume: {
            position,
            usage: run.usage,
            startedAt: run.startedAt,
            wire: run.wire?.snapshot(),
            lastResponse: response,
            ...(run.eventLog ? { loggedOffset: run.eventLog.loggedOffset } : {}),
            ...(paused ? { paused } : {}),
          },
        });
      }
    }
    // A loop consumes its sub-agents' escalation; only `toRoot` travels further up.
    if (escalation) return { response, terminationReason: 'escalated', ...(escalation.toRoot ? { escalation } : {}) };
    return { response, terminationReason: 'max_iterations' };
  });
}
