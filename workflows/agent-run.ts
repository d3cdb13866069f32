// The agentRun workflow: the LLM loop of DESIGN.md section 4. Every model and tool call is an activity;
// this code only decides and records, so a run replays to the same state after any crash.
import { CancellationScope, continueAsNew, isCancellation, makeContinueAsNewFunc, patched, workflowInfo, setHandler } from '@temporalio/workflow';
import { AgentRunInput, EXIT_LOOP_TOOL, ZERO_USAGE, addUsage, jsonBytes, splitTools, stepToMessage, type AgentToolSpec, type ChatMessage, type Escalation, type RunOutput, type Step, type TerminationReason, type ToolSpec } from '../common';
import { Approvals } from './approvals';
import { RunControl } from './control';
import { UPGRADE_PATCH } from './upgrade';
import { escalationFromOutput, exitLoopStep } from './escalation';
import { withSpentUsage } from './agent-tool';
import { CARRY_OVER_PATCH, carriedInput, compactSteps, fittingInput } from './carry-over';
import { COMPACTION_PATCH, compactConversation, compactionThreshold, type CompactionTarget } from './compaction';
import { decideNext, spentBudget } from './decisions';
import { createEmitter, eventBase } from './emitter';
import { conversationQuery, stateQuery, type RunState } from './messages';
import { LEAN_STEPS_PATCH, callModelActivity, failRun, modelInput, resolveToolsWith, withModelRetryLimits } from './model-step';
import { MAX_STEPS_PROMPT, buildRunContext, initialMessages, renderInstructions } from './run-context';
import { errorSummary, isContinueAsNew } from './run-errors';
import { failInvalidInput } from './run-input';
import { EVENT_LOG_TAIL_PATCH } from './event-log';
import { RunRecorder } from './run-record';
import { runToolCalls } from './tool-calls';
import { StructuredOutput } from './structured-output';
import { hostWire, type WireState } from './wire';

/** Largest output returned with its steps (UTF-8 bytes of JSON); Temporal refuses a result over 2 MiB. */
export const MAX_RUN_OUTPUT_BYTES = 1_500_000;
/** Characters of a run's input its RUN_STARTED event carries (the whole input is in the run's first user step). */
const INPUT_PREVIEW_CHARS = 2000;

/** Runs one LLM agent to its final answer (or a limit) and returns its output. */
export async function agentRun(rawInput: AgentRunInput): Promise<RunOutput> {
  const parsed = AgentRunInput.safeParse(rawInput);
  if (!parsed.success) return failInvalidInput(rawInput, parsed.error);
  const input = parsed.data;
  const { agent, resume } = input;
  const context = withModelRetryLimits(buildRunContext(agent, input.context, workflowInfo().workflowId));
  const isRoot = context.depth === 0;
  const wire = isRoot ? hostWire(resume?.wire as WireState | undefined) : undefined;
  const events = createEmitter(eventBase(context, agent.name, context.nestingType), wire, context.stream);
  const callModel = callModelActivity(context);
  const control = new RunControl(events, context.parentRunId, resume?.paused);
  const approvals = new Approvals(events, context, agent.permissions, agent.approvalTimeoutMs, control, resume?.approvals);
  // Agents with an output schema only (so runs of earlier releases, which never have one, replay untouched).
  const structured = StructuredOutput.of(agent, resume?.outputRepairs);

  const steps: Step[] = [];
  const messages: ChatMessage[] = [];
  const run = { usage: resume?.usage ?? ZERO_USAGE, ownUsage: resume?.ownUsage ?? ZERO_USAGE, modelCalls: resume?.modelCalls ?? 0, toolCalls: resume?.toolCalls ?? 0, toolErrors: resume?.toolErrors ?? 0 };
  const startedAt = resume?.startedAt ?? Date.now();
  const modelCallsAtStart = run.modelCalls;
  const recorder = new RunRecorder(context, agent.name, startedAt, resume?.steps.length, wire, resume?.loggedOffset);
  let history: ChatMessage[] = resume?.history ?? [];
  const state = { status: 'running' as RunState['status'], runningTools: [] as string[] };
  setHandler(stateQuery, (): RunState => ({
    runId: context.runId,
    agent: agent.name,
    kind: 'llm',
    ...state,
    ...control.state(),
    currentStep: steps.length,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    children: control.childIds(),
    pendingApprovals: approvals.list(),
  }));

  setHandler(conversationQuery, ({ count }) => messages.slice(0, count));

  // The message each step put in the conversation (a step handed to a model call names it instead of repeating it).
  const messageOf = new WeakMap<Step, ChatMessage>();
  const remember = (step: Step) => {
    steps.push(step);
    const message = stepToMessage(step);
    messageOf.set(step, message);
    messages.push(message);
  };
  // How the run ends: its record is closed and stored before its terminal event, which a root then adds to its
  // event log (runs started before the log existed replay without that write). A failed write fails nothing.
  const logsTail = isRoot && patched(EVENT_LOG_TAIL_PATCH);
  // Tools resolved locally, and a turn's steps riding on the next model call (see LEAN_STEPS_PATCH).
  const leanSteps = patched(LEAN_STEPS_PATCH);
  // Moving to a newer worker version at continue-as-new. A documented patched() example: runs started before this
  // release replay without it (the branch adds commands: a continue-as-new when a newer version becomes current, and a
  // safe point before each model call), while runs started with it take the new path from their first task on.
  const upgrades = patched(UPGRADE_PATCH);
  const finish = async (status: 'completed' | 'failed' | 'cancelled', terminal: Parameters<typeof events.emit>[0]) => {
    const ending = recorder.end(steps, status, run.usage);
    await (status === 'completed' ? ending : ending.catch(() => undefined));
    await events.emit(terminal);
    if (logsTail) await recorder.eventLog.logTail();
  };
  // Compaction replaces a stored step of an earlier turn with its compacted copy, in the steps and the conversation.
  const compaction: CompactionTarget = {
    steps,
    bytes: () => jsonBytes(messages),
    compactable: () => Math.min(recorder.written, steps.map((s) => s.role).lastIndexOf('assistant')),
    replace(index, step) {
      const message = stepToMessage(step);
      messages[messages.indexOf(messageOf.get(steps[index])!)] = message;
      messageOf.set(step, message);
      steps[index] = step;
    },
  };
  const threshold = compactionThreshold(context.limits);
  const commit = async (step: Step) => {
    remember(step);
    await events.emit({ type: 'STEP_COMPLETED', stepId: step.id, snapshot: step, ...(step.usage ? { usage: step.usage } : {}) });
  };

  try {
    if (resume) {
      resume.steps.forEach(remember);
    } else {
      // Not cancellable: a run cancelled at once still records that it started and what it was asked.
      await CancellationScope.nonCancellable(async () => {
        // The input itself is in the first user step; a long one is only previewed here, so no event is copied twice that big.
        const preview = typeof input.input !== 'string' ? input.input.length + ' messages' : input.input.length > INPUT_PREVIEW_CHARS ? `${input.input.slice(0, INPUT_PREVIEW_CHARS)}…` : input.input;
        await events.emit({ type: 'RUN_STARTED', data: { input: preview, ...(preview !== input.input && typeof input.input === 'string' ? { inputChars: input.input.length } : {}), ...(context.sessionId ? { sessionId: context.sessionId } : {}) } });
        await recorder.start();
        history = await recorder.history();
        for (const m of initialMessages(renderInstructions(agent.instructions, input.state), input.input)) {
          await commit({ id: `${context.runId}:${steps.length}`, runId: context.runId, index: steps.length, ...m });
        }
      });
    }
    // A session's earlier conversation goes after the instructions and before this run's input; it is not this run's steps.
    messages.splice(messages[0]?.role === 'system' ? 1 : 0, 0, ...history);
    const specs = new Map<string, ToolSpec>();
    const agentTools = new Map<string, AgentToolSpec>();
    const declared = splitTools(agent.tools);
    const offersExitLoop = declared.names.includes(EXIT_LOOP_TOOL.name);
    declared.names = declared.names.filter((n) => n !== EXIT_LOOP_TOOL.name);
    if (agent.tools.length) {
      const checked = declared.agentTools.filter((t) => t.healthcheck).map((t) => t.agent);
      const resolved = await resolveToolsWith(leanSteps)({ names: declared.names, healthchecks: checked });
      for (const spec of resolved.specs) specs.set(spec.name, spec);
      for (const tool of declared.agentTools) if (!resolved.unhealthyAgents.includes(tool.agent.name)) agentTools.set(tool.name, tool);
    }

    const inlineTools = [
      ...[...agentTools.values()].map((t) => ({ name: t.name, description: t.description })),
      ...(offersExitLoop ? [{ name: EXIT_LOOP_TOOL.name, description: EXIT_LOOP_TOOL.description, parameters: EXIT_LOOP_TOOL.parameters }] : []),
    ];
    const askModel = async (tools: string[]) => {
      await control.safePoint();
      let bytes = jsonBytes(messages);
      // Near the model-input limit, older tool outputs and arguments make way (runs started before it: see the patch).
      if (threshold !== undefined && bytes > threshold && patched(COMPACTION_PATCH)) bytes = await compactConversation(context, events, compaction, bytes, specs.has('get_tool_result'));
      const conversation = modelInput(agent.name, messages, context, bytes);
      const index = steps.length;
      const handOff = leanSteps ? recorder.handOff(steps, messages, (step) => messageOf.get(step)) : undefined;
      const out = await control.track(callModel({
        runId: context.runId,
        rootRunId: context.rootRunId,
        stepId: `${context.runId}:${index}`,
        stepIndex: index,
        model: agent.model,
        modelSettings: agent.modelSettings,
        ...conversation,
        tools,
        agentTools: tools.length ? inlineTools : [],
        eventBase: events.base,
        streamDeltas: context.stream === 'full',
        maxOutputBytes: context.limits.maxModelOutputBytes,
        streamIdleMs: context.limits.modelStreamIdleMs,
        ...(handOff?.persist ? { persist: handOff.persist } : {}),
        ...(structured ? { outputFormat: structured.format } : {}),
      })).catch((err) => failRun(agent.name, err));
      handOff?.accepted();
      run.modelCalls++;
      run.usage = addUsage(run.usage, out.usage);
      run.ownUsage = addUsage(run.ownUsage, out.usage);
      await commit(out.step);
      return out;
    };

    let response = '';
    let output: RunOutput['output'];
    let terminationReason: TerminationReason = 'completed';
    let escalation: Escalation | undefined;
    // Continues as new with what the run carries: steps stored first (see CARRY_OVER_PATCH), then the run waits for a
    // safe point (nothing may await between that wait and the continue-as-new). With upgrades, the new run starts on
    // the current worker version (a paused run moves there still paused).
    const continueAsNewNow = async (): Promise<never> => {
      const carry = patched(CARRY_OVER_PATCH);
      if (carry) await recorder.flush(steps);
      await control.beforeContinueAsNew(upgrades ? control.upgradeWanted : undefined);
      if (!carry) await recorder.flush(steps);
      const paused = upgrades ? control.carriedPause() : undefined;
      const next = (carried: Step[]): AgentRunInput => ({ ...input, ...(carry ? { input: carriedInput(input.input) as AgentRunInput['input'] } : {}), context, resume: { steps: carried, ...run, startedAt, history, wire: wire?.snapshot(), ...(wire ? { loggedOffset: recorder.eventLog.loggedOffset } : {}), ...(carry ? { approvals: approvals.carried() } : {}), ...(paused ? { paused } : {}), ...(structured ? { outputRepairs: structured.carried() } : {}) } });
      const args = carry ? fittingInput(steps, next) : next(compactSteps(steps));
      return upgrades ? makeContinueAsNewFunc<typeof agentRun>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(args) : continueAsNew<typeof agentRun>(args);
    };
    for (;;) {
      // A paused run parks here; a newer worker version becoming current moves it there, still paused.
      if (upgrades && (await control.safePoint(control.upgradeWanted)) === 'upgrade') await continueAsNewNow();
      const { step, outputCheck } = await askModel([...specs.keys(), ...inlineTools.map((t) => t.name)]);
      const next = decideNext(step, run.modelCalls, run.usage, context.limits);
      if (next.kind === 'final_output') {
        response = next.response;
        if (structured) {
          // An answer off the schema gets a repair turn (tools still offered), or fails the run when none is left.
          const verdict = structured.verdict(step, outputCheck);
          if (verdict.kind === 'rejected') {
            await commit(structured.repairStep(context.runId, steps.length, verdict.violations));
            continue;
          }
          ({ response, output } = verdict);
        }
        escalation = escalationFromOutput(agent.name, response);
        break;
      }
      if (next.kind === 'max_tokens') {
        response = step.content ?? '';
        terminationReason = 'max_tokens';
        break;
      }
      state.runningTools = (step.toolCalls ?? []).map((c) => c.id);
      const calls = step.toolCalls ?? [];
      const exits = offersExitLoop ? calls.filter((c) => c.name === EXIT_LOOP_TOOL.name) : [];
      const others = calls.filter((c) => !exits.includes(c));
      const results = await runToolCalls({ context, events, specs, agentTools, messages, calls: others, firstIndex: steps.length, sequential: agent.sequentialToolCalls, control, approvals, spentTokens: run.usage.totalTokens });
      for (const call of exits) {
        const exit = exitLoopStep(context.runId, agent.name, call, steps.length + results.length);
        escalation ??= exit.escalation;
        results.push(exit.step);
      }
      state.runningTools = [];
      for (const result of results) {
        await commit(result);
        run.usage = addUsage(run.usage, result.usage); // an agent tool's usage (its whole subtree)
        run.toolCalls++;
        if (result.isError) run.toolErrors++;
      }
      if (!leanSteps) await recorder.flush(steps);
      if (escalation) {
        response = escalation.reason ?? step.content ?? '';
        break;
      }
      if (next.kind === 'run_tools' && spentBudget(run.usage, context.limits)) {
        // Agents called as tools spent what was left of the tree's budget: no further model call.
        response = step.content ?? '';
        terminationReason = 'max_tokens';
        break;
      }
      if (next.kind === 'max_steps') {
        await commit({ id: `${context.runId}:${steps.length}`, runId: context.runId, index: steps.length, role: 'user', content: MAX_STEPS_PROMPT, metadata: { synthetic: 'max_steps' } });
        const summary = await askModel([]);
        response = summary.step.content ?? '';
        if (structured) {
          const repair = async (violations: string[]) => {
            await commit(structured.repairStep(context.runId, steps.length, violations));
            return askModel([]);
          };
          ({ response, output } = await structured.settle(summary, repair));
        }
        terminationReason = 'max_steps';
        break;
      }
      // Between steps nothing is in flight; park here if paused, and let handlers finish so no published batch is lost.
      if (workflowInfo().continueAsNewSuggested || run.modelCalls - modelCallsAtStart >= context.limits.continueAsNewAfterModelCalls || (upgrades && control.upgradeWanted())) {
        await continueAsNewNow();
      }
    }

    const runOutput: RunOutput = {
      response,
      ...(output !== undefined ? { output } : {}),
      runId: context.runId,
      ...(context.sessionId ? { sessionId: context.sessionId } : {}),
      usage: run.usage,
      metrics: { steps: steps.length, modelCalls: run.modelCalls, toolCalls: run.toolCalls, toolErrors: run.toolErrors, durationMs: Date.now() - startedAt },
      terminationReason,
      steps,
      ...(escalation ? { escalation } : {}),
    };
    // A result over Temporal's payload cap could never be recorded: the run would retry its last task for ever.
    if (jsonBytes(runOutput) > MAX_RUN_OUTPUT_BYTES) Object.assign(runOutput, { steps: [], stepsOmitted: steps.length });
    // The parsed output repeats the response; over the cap even without the steps, readers parse `response` instead.
    if (jsonBytes(runOutput) > MAX_RUN_OUTPUT_BYTES) delete runOutput.output;
    state.status = 'completed';
    control.finish();
    await finish('completed', { type: 'RUN_COMPLETED', usage: run.usage, data: { response, terminationReason, metrics: runOutput.metrics, ownUsage: run.ownUsage } });
    return runOutput;
  } catch (err) {
    if (isContinueAsNew(err)) throw err;
    control.finish();
    const cancelled = isCancellation(err);
    state.status = cancelled ? 'cancelled' : 'failed';
    // Stored as on completion: a reader that sees the run end finds it closed and stored.
    await CancellationScope.nonCancellable(() => finish(cancelled ? 'cancelled' : 'failed', { type: cancelled ? 'RUN_CANCELLED' : 'RUN_FAILED', usage: run.usage, data: { error: errorSummary(err) } }));
    // A nested run's failure carries what it spent, so the tokens still roll up into its parent's usage.
    throw context.depth > 0 && !cancelled ? withSpentUsage(err, run.usage) : err;
  }
}
