// The agentByName workflow: a run started by its agent's name. Its first step, a local activity, resolves the name
// from the worker's agents (its answer, the spec and limits, is recorded in this history); then the run continues as
// new as its agent's own workflow type (agentRun, loopAgentRun, …) with the spec in its input, exactly as if the
// client had sent the spec. One run stays one workflow id; Temporal shows the agent's own type from then on.
import {
  ApplicationFailure,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  AgentByNameInput,
  ErrorType,
  isWorkflowAgent,
  jsonBytes,
  limitAboveAgentMessage,
  modelInputTooLargeMessage,
  workflowTypeFor,
  type AgentRunInput,
  type ResolveAgentOutput,
  type RunOutput,
  type WorkflowAgentRunInput,
} from '../../common';
import { stateQuery } from '../../common/messages';
import { createEmitter, eventBase } from '../events/emitter';
import { EventLogWriter } from '../events/event-log';
import { errorSummary, failureMessage } from './run-errors';
import { buildRunContext } from './run-context';
import { failInvalidInput } from './run-input';
import { BOUNDED_STORE_CALLS_PATCH } from '../events/store-calls';
import { hostWire, type Wire } from '../events/wire';
import type { AgioActivities } from '../../common/contracts/activities';

/** A registry lookup in the worker's memory: quick, and on the worker whose code will run the agent. */
const { resolveAgent } = proxyLocalActivities<AgioActivities>({
  startToCloseTimeout: '10s',
  retry: { maximumAttempts: 3 },
});

/**
 * Resolves the agent named in the input, then continues as new as that agent's run; fails at once for unknown names.
 */
export async function agentByName(raw: AgentByNameInput): Promise<RunOutput> {
  const parsed = AgentByNameInput.safeParse(raw);
  if (!parsed.success) return failInvalidInput(raw, parsed.error);
  const request = parsed.data;
  const name = request.agentName;
  // Patches the failure path asks (its event log's tail) are asked now, before the local activity: asked after one, a
  // patch's marker can land in a later workflow task than replay looks for it (docs/ARCHITECTURE.md, "Upgrades").
  patched(BOUNDED_STORE_CALLS_PATCH);
  const tenant = request.context?.tenant ?? 'default';
  // Readers that come in the moment the name resolves find an empty log and a running run (its kind is not known yet;
  // the agent's run, after the continue-as-new, starts its log at offset 0 and answers with its own kind).
  const wire = hostWire(undefined, workflowInfo().workflowId);
  setHandler(stateQuery, () => ({
    runId: workflowInfo().workflowId,
    agent: name,
    kind: 'llm' as const,
    status: 'running' as const,
    paused: false,
    parked: false,
    children: [],
    pendingApprovals: [],
  }));
  let resolved: ResolveAgentOutput;
  try {
    resolved = await resolveAgent({
      name,
      tenant,
      ...(request.modelSettings ? { modelSettings: request.modelSettings } : {}),
      ...(request.context?.limits ? { limits: request.context.limits } : {}),
      ...(request.tightenOnly ? { tightenOnly: true } : {}),
    });
  } catch (err) {
    // A run cancelled while its name resolves ends cancelled (its readers get a closing event from its status).
    if (isCancellation(err)) throw err;
    return fail(wire, request, ErrorType.UnknownAgent, `agent "${name}" could not be resolved: ${failureMessage(err)}`);
  }
  if (!resolved.found)
    return fail(
      wire,
      request,
      ErrorType.UnknownAgent,
      `unknown agent "${name}": the worker that took this run has no agent by that name (its agents file or the ` +
        'agents it was created with); deploy a worker that has it, or start the run with a spec',
    );
  if (resolved.refused) return fail(wire, request, ErrorType.LimitAboveAgent, limitAboveAgentMessage(resolved.refused));
  const { agent, limits } = resolved;
  const bytes = jsonBytes(request.input);
  if (bytes > limits.maxModelInputBytes)
    return fail(
      wire,
      request,
      ErrorType.ModelInputTooLarge,
      modelInputTooLargeMessage('the run input', bytes, limits.maxModelInputBytes),
    );
  const context = { ...request.context, limits };
  const state = request.state ? { state: request.state } : {};
  const continueAs = makeContinueAsNewFunc<(arg: AgentRunInput | WorkflowAgentRunInput) => Promise<RunOutput>>({
    workflowType: workflowTypeFor(agent.kind),
  });
  if (isWorkflowAgent(agent))
    return continueAs({
      agent,
      input: request.input,
      context,
      ...state,
      ...(request.resumeFrom ? { resumeFrom: request.resumeFrom } : {}),
    });
  return continueAs({ agent, input: request.input, context, ...state });
}

/** Ends the run before its agent started: RUN_FAILED on its log (so streams end), and a non-retryable failure. */
async function fail(wire: Wire, request: AgentByNameInput, type: ErrorType, message: string): Promise<never> {
  const failure = ApplicationFailure.create({ type, message, nonRetryable: true });
  const context = buildRunContext({ name: request.agentName }, request.context, workflowInfo().workflowId);
  await createEmitter(eventBase(context, request.agentName), wire).emit({
    type: 'RUN_FAILED',
    data: { error: errorSummary(failure) },
  });
  await new EventLogWriter(context, wire).logTail();
  throw failure;
}
