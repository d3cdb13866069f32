// How an agent run continues as new between turns: its steps stored, then at a safe point, with what the next run needs
// (steps, counters, the Wire, approvals, a pause, repair turns) in an input that fits under Temporal's payload cap.
import { continueAsNew, makeContinueAsNewFunc, patched } from '@temporalio/workflow';
import type { AgentRunInput, RunOutput, Step } from '../../common';
import type { AgentRun } from './agent-run-state';
import { CARRY_OVER_PATCH, carriedInput, compactSteps, fittingInput } from './carry-over';

/** The agentRun workflow's signature (what continue-as-new starts again). */
type AgentRunWorkflow = (input: AgentRunInput) => Promise<RunOutput>;

/**
 * Continues as new: the steps are stored first (see CARRY_OVER_PATCH), then the run waits for a safe point (nothing may
 * await between that wait and the continue-as-new). With upgrades, the new run starts on the current worker version (a
 * paused run moves there still paused).
 */
export async function continueAgentRunAsNew(run: AgentRun): Promise<never> {
  const { request, context, control, recorder, wire, approvals, structured, upgrades } = run;
  const steps = run.conversation.steps;
  const carry = patched(CARRY_OVER_PATCH);
  if (carry) await recorder.flush(steps);
  await control.beforeContinueAsNew(upgrades ? control.upgradeWanted : undefined);
  if (!carry) await recorder.flush(steps);
  const paused = upgrades ? control.carriedPause() : undefined;
  const messages = run.messages.carried();
  const callbacks = run.callbacks.carried();
  // A retry's or fork's seed is in its steps by now: not carried again.
  const { seed: _seed, ...kept } = request;
  const next = (carried: Step[]): AgentRunInput => ({
    ...kept,
    ...(carry ? { input: carriedInput(request.input) as AgentRunInput['input'] } : {}),
    context,
    resume: {
      steps: carried,
      ...run.counters,
      startedAt: run.startedAt,
      history: run.history,
      wire: wire?.snapshot(),
      ...(wire ? { loggedOffset: recorder.eventLog.loggedOffset } : {}),
      ...(carry ? { approvals: approvals.carried() } : {}),
      ...(paused ? { paused } : {}),
      ...(structured ? { outputRepairs: structured.carried() } : {}),
      ...(messages ? { messages } : {}),
      ...(callbacks ? { callbacks } : {}),
    },
  });
  const args = carry ? fittingInput(steps, next) : next(compactSteps(steps));
  if (upgrades) return makeContinueAsNewFunc<AgentRunWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(args);
  return continueAsNew<AgentRunWorkflow>(args);
}
