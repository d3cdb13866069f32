// A run's state as clients see it: what the workflow reports, plus what only Temporal's record of the run knows
// (a model call it keeps retrying, the worker version running it).
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { runCostOf, type RunCost, type RunState } from '../common';
import { modelOutageOf, type ModelOutage } from './model-outage';
import { runVersionOf, type RunVersion } from './run-version';

/**
 * A run's state as clients see it: what the workflow says, whether its model call is failing, and its worker version.
 */
export type RunStateView = RunState & { modelUnavailable?: ModelOutage; version?: RunVersion; cost?: RunCost };

/**
 * The state with what Temporal's record adds: the model outage (see {@link modelOutageOf}) while there is one, and the
 * run's version; and its cost so far (from its usage).
 */
export function stateView(state: RunState, description: WorkflowExecutionDescription): RunStateView {
  const outage = modelOutageOf(description);
  const version = runVersionOf(description);
  const cost = runCostOf(state.usage);
  return {
    ...state,
    ...(outage ? { modelUnavailable: outage } : {}),
    ...(version ? { version } : {}),
    ...(cost ? { cost } : {}),
  };
}
