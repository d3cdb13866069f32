// The agentRun workflow: the LLM loop of DESIGN.md section 4. Every model and tool call is an activity;
// this code only decides, so a run replays to the same state after any crash.
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import {
  AgentRunInput,
  NON_RETRYABLE_MODEL_ERRORS,
  ZERO_USAGE,
  addUsage,
  stepToMessage,
  type ChatMessage,
  type RunContext,
  type RunOutput,
  type Step,
  type TerminationReason,
  type ToolSpec,
  type Usage,
} from '../common';
import type { AgioActivities } from '../activities';
import { decideNext } from './decisions';
import { MAX_STEPS_PROMPT, buildRunContext, initialMessages, renderInstructions } from './run-context';
import { failureMessage, runToolCalls } from './tool-calls';

const { resolveTools } = proxyActivities<AgioActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });

function modelActivity(context: RunContext): AgioActivities['callModel'] {
  const { limits } = context;
  return proxyActivities<AgioActivities>({
    startToCloseTimeout: limits.modelTimeoutMs,
    heartbeatTimeout: limits.modelHeartbeatTimeoutMs,
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '60s',
      maximumAttempts: limits.modelMaxAttempts,
      nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
    },
  }).callModel;
}

/** Runs one LLM agent to its final answer (or a limit) and returns its output. */
export async function agentRun(rawInput: AgentRunInput): Promise<RunOutput> {
  const input = AgentRunInput.parse(rawInput);
  const { agent } = input;
  const context = buildRunContext(agent, input.context, workflowInfo().workflowId);
  const startedAt = Date.now();
  const callModel = modelActivity(context);
  const steps: Step[] = [];
  const messages: ChatMessage[] = [];
  const commit = (step: Step) => {
    steps.push(step);
    messages.push(stepToMessage(step));
  };
  for (const m of initialMessages(renderInstructions(agent.instructions, input.state), input.input)) {
    commit({ id: `${context.runId}:${steps.length}`, runId: context.runId, index: steps.length, ...m });
  }

  const specs = new Map<string, ToolSpec>();
  if (agent.tools.length) {
    const resolved = await resolveTools({ names: agent.tools });
    for (const spec of resolved.specs) specs.set(spec.name, spec);
    if (resolved.unknown.length) console.warn(`agent "${agent.name}" names tools the worker does not have: ${resolved.unknown.join(', ')}`);
  }

  let usage: Usage = ZERO_USAGE;
  let modelCalls = 0;
  let toolCalls = 0;
  let toolErrors = 0;
  const askModel = async (tools: string[]): Promise<Step> => {
    const index = steps.length;
    try {
      const out = await callModel({
        runId: context.runId,
        rootRunId: context.rootRunId,
        stepId: `${context.runId}:${index}`,
        stepIndex: index,
        model: agent.model,
        modelSettings: agent.modelSettings,
        messages,
        tools,
      });
      modelCalls++;
      usage = addUsage(usage, out.usage);
      commit(out.step);
      return out.step;
    } catch (err) {
      if (err instanceof ActivityFailure) {
        const cause = err.cause instanceof ApplicationFailure ? err.cause : undefined;
        throw ApplicationFailure.create({ type: cause?.type ?? 'ModelCallFailed', message: `model call for agent "${agent.name}" failed: ${failureMessage(err)}`, nonRetryable: true, cause: err });
      }
      throw err;
    }
  };

  let response = '';
  let terminationReason: TerminationReason = 'completed';
  for (;;) {
    const step = await askModel([...specs.keys()]);
    const next = decideNext(step, modelCalls, usage, context.limits);
    if (next.kind === 'final_output') {
      response = next.response;
      break;
    }
    if (next.kind === 'max_tokens') {
      response = step.content ?? '';
      terminationReason = 'max_tokens';
      break;
    }
    const results = await runToolCalls({ context, specs, calls: step.toolCalls ?? [], firstIndex: steps.length, sequential: agent.sequentialToolCalls });
    for (const result of results) {
      commit(result);
      toolCalls++;
      if (result.isError) toolErrors++;
    }
    if (next.kind === 'max_steps') {
      commit({ id: `${context.runId}:${steps.length}`, runId: context.runId, index: steps.length, role: 'user', content: MAX_STEPS_PROMPT, metadata: { synthetic: 'max_steps' } });
      const summary = await askModel([]);
      response = summary.content ?? '';
      terminationReason = 'max_steps';
      break;
    }
  }

  return {
    response,
    runId: context.runId,
    ...(context.sessionId ? { sessionId: context.sessionId } : {}),
    usage,
    metrics: { steps: steps.length, modelCalls, toolCalls, toolErrors, durationMs: Date.now() - startedAt },
    terminationReason,
    steps,
  };
}
