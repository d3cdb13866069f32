// The agentRun workflow: the LLM loop. Ask the model; run the tools it asks for; repeat until it answers, a limit ends
// the run or a sub-agent escalates. Every model and tool call is an activity; this code only decides and records, so a
// run replays to the same state after any crash. How it is set up, starts and ends: agent-run-state.ts,
// run-lifecycle.ts.
import { workflowInfo } from '@temporalio/workflow';
import { AgentRunInput, EXIT_LOOP_TOOL, addUsage, type Escalation, type RunOutput, type Step } from '../../common';
import { continueAgentRunAsNew } from './agent-run-continue';
import {
  closeAgentRun,
  commit,
  completedRun,
  nextStep,
  openAgentRun,
  startAgentRun,
  type AgentRun,
  type AgentRunResult,
} from './agent-run-state';
import { withSpentUsage } from '../nesting/agent-tool';
import { askModel } from './ask-model';
import { decideNext, spentBudget } from './decisions';
import { escalationFromOutput, exitLoopStep } from './escalation';
import { MAX_STEPS_PROMPT } from '../lifecycle/run-context';
import { failInvalidInput } from '../lifecycle/run-input';
import { runLifecycle } from '../lifecycle/run-lifecycle';
import { runToolCalls } from './tool-calls';
import { resolveToolkit, type Toolkit } from './toolkit';

/** Runs one LLM agent to its final answer (or a limit) and returns its output. */
export async function agentRun(rawInput: AgentRunInput): Promise<RunOutput> {
  const parsed = AgentRunInput.safeParse(rawInput);
  if (!parsed.success) return failInvalidInput(rawInput, parsed.error);
  const run = openAgentRun(parsed.data);
  return runLifecycle(run, {
    start: run.request.resume ? undefined : () => startAgentRun(run),
    work: async () => {
      const result = await loop(run);
      run.messages.close();
      return completedRun(run, result);
    },
    close: (ending, terminal) => closeAgentRun(run, ending, terminal),
    usage: () => run.counters.usage,
    // A nested run's failure carries what it spent, so the tokens still roll up into its parent's usage.
    failure: run.context.depth > 0 ? (err) => withSpentUsage(err, run.counters.usage) : undefined,
  });
}

/** Model call, then the tools it asks for, until the model answers or a limit or an escalation ends the run. */
async function loop(run: AgentRun): Promise<AgentRunResult> {
  const { agent, context, control, counters, structured } = run;
  run.conversation.insertHistory(run.history);
  const toolkit = await resolveToolkit(agent, run.leanSteps);
  for (;;) {
    // A paused run parks here; a newer worker version becoming current moves it there, still paused.
    if (run.upgrades && (await control.safePoint(control.upgradeWanted)) === 'upgrade')
      await continueAgentRunAsNew(run);
    const { step, outputCheck } = await askModel(run, toolkit, toolkit.names);
    const next = decideNext(step, counters.modelCalls, counters.usage, context.limits);
    if (next.kind === 'final_output') {
      let answer: Omit<AgentRunResult, 'terminationReason'> = { response: next.response };
      if (structured) {
        // An answer off the schema gets a repair turn (tools still offered), or fails the run when none is left.
        const verdict = structured.verdict(step, outputCheck);
        if (verdict.kind === 'rejected') {
          await commit(run, structured.repairStep(context.runId, run.conversation.steps.length, verdict.violations));
          continue;
        }
        answer = { response: verdict.response, output: verdict.output };
      }
      // Messages a user sent while the model answered are read and answered before the run ends.
      if (run.messages.keepsRunning()) continue;
      return {
        ...answer,
        terminationReason: 'completed',
        escalation: escalationFromOutput(agent.name, answer.response),
      };
    }
    if (next.kind === 'max_tokens') return { response: step.content ?? '', terminationReason: 'max_tokens' };
    const escalation = await toolTurn(run, toolkit, step);
    if (escalation)
      return { response: escalation.reason ?? step.content ?? '', terminationReason: 'completed', escalation };
    // Agents called as tools spent what was left of the tree's budget: no further model call.
    if (next.kind === 'run_tools' && spentBudget(counters.usage, context.limits))
      return { response: step.content ?? '', terminationReason: 'max_tokens' };
    if (next.kind === 'max_steps') {
      // The run is ending: messages already accepted are read before the summary, later ones are refused.
      run.messages.close();
      return summary(run, toolkit);
    }
    // Between steps nothing is in flight; park here if paused, and let handlers finish so no published batch is lost.
    const calls = counters.modelCalls - run.modelCallsAtStart;
    if (
      workflowInfo().continueAsNewSuggested ||
      calls >= context.limits.continueAsNewAfterModelCalls ||
      (run.upgrades && control.upgradeWanted())
    ) {
      await continueAgentRunAsNew(run);
    }
  }
}

/**
 * Runs the tool calls of `step` (exit_loop in the workflow itself), commits their steps, and returns an escalation if
 * asked.
 */
async function toolTurn(run: AgentRun, toolkit: Toolkit, step: Step): Promise<Escalation | undefined> {
  const { agent, context, events, control, approvals, conversation, counters } = run;
  const calls = step.toolCalls ?? [];
  run.runningTools = calls.map((c) => c.id);
  const exits = toolkit.offersExitLoop ? calls.filter((c) => c.name === EXIT_LOOP_TOOL.name) : [];
  const results = await runToolCalls({
    context,
    events,
    specs: toolkit.specs,
    agentTools: toolkit.agentTools,
    messages: conversation.messages,
    calls: calls.filter((c) => !exits.includes(c)),
    firstIndex: conversation.steps.length,
    sequential: agent.sequentialToolCalls,
    control,
    waits: run.waits,
    approvals,
    callbacks: run.callbacks,
    spentTokens: counters.usage.totalTokens,
  });
  let escalation: Escalation | undefined;
  for (const call of exits) {
    const exit = exitLoopStep(context.runId, agent.name, call, conversation.steps.length + results.length);
    escalation ??= exit.escalation;
    results.push(exit.step);
  }
  run.runningTools = [];
  for (const result of results) {
    await commit(run, result);
    counters.usage = addUsage(counters.usage, result.usage); // an agent tool's usage (its whole subtree)
    counters.toolCalls++;
    if (result.isError) counters.toolErrors++;
  }
  if (!run.leanSteps) await run.recorder.flush(conversation.steps);
  return escalation;
}

/** The step budget is spent: one last model call, without tools, asks for a summary as the final answer. */
async function summary(run: AgentRun, toolkit: Toolkit): Promise<AgentRunResult> {
  await commit(run, {
    ...nextStep(run),
    role: 'user',
    content: MAX_STEPS_PROMPT,
    metadata: { synthetic: 'max_steps' },
  });
  const answer = await askModel(run, toolkit, []);
  const { structured } = run;
  if (!structured) return { response: answer.step.content ?? '', terminationReason: 'max_steps' };
  const repair = async (violations: string[]) => {
    await commit(run, structured.repairStep(run.context.runId, run.conversation.steps.length, violations));
    return askModel(run, toolkit, []);
  };
  const { response, output } = await structured.settle(answer, repair);
  return { response, output, terminationReason: 'max_steps' };
}
