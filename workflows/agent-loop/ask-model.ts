// One model call of an agent run: made at a safe point, with the conversation compacted (and condensed) near its limit
// and handed over inline or through the message store, and the steps not yet stored riding along (the lean step path).
// Its answer is the next step.
import { patched } from '@temporalio/workflow';
import { addUsage, jsonBytes } from '../../common';
import { commit, nextStep, type AgentRun } from './agent-run-state';
import { COMPACTION_PATCH, compactConversation, compactionThreshold } from '../conversation/compaction';
import { CONDENSATION_PATCH, condenseConversation } from './condensation';
import { callBudget, withinBudget } from './budget';
import { conversationNotStored } from '../conversation/conversation-writes';
import { conversationForCall, failRun } from './model-step';
import type { Toolkit } from './toolkit';
import { INTERRUPTED_ATTEMPT } from '../lifecycle/user-messages';
import type { CallModelOutput } from '../../common/contracts/model-call';

/** Asks the model for the next step, offering `tools` (none: it must answer), and commits the step it answers with. */
export async function askModel(run: AgentRun, toolkit: Toolkit, tools: string[]): Promise<CallModelOutput> {
  const { agent, context, conversation, control, events, recorder, structured, counters } = run;
  await control.safePoint();
  await takeUserMessages(run);
  let bytes = jsonBytes(conversation.messages);
  // Near the model-input limit, older tool outputs and arguments make way (runs started before it: see the patch).
  const threshold = compactionThreshold(context.limits);
  if (threshold !== undefined && bytes > threshold && patched(COMPACTION_PATCH)) {
    // Decided before compaction's store write: a patch first asked for after a local activity may be recorded in a
    // later workflow task than the one replay looks it up in (seen as a nondeterminism error on replay).
    const condenses = patched(CONDENSATION_PATCH);
    const target = conversation.compactionTarget(() => recorder.written);
    bytes = await compactConversation(context, events, target, bytes, toolkit.specs.has('get_tool_result'));
    // What references alone could not bring under the threshold: the oldest turns are summarised.
    if (condenses) bytes = await condenseConversation(run, bytes, threshold);
  }
  const index = conversation.steps.length;
  const handOff = run.leanSteps
    ? recorder.handOff(conversation.steps, conversation.messages, (step) => conversation.messageFor(step))
    : undefined;
  const callOnce = (sent: ReturnType<typeof conversationForCall>) =>
    control.track(
      run.callModel({
        runId: context.runId,
        rootRunId: context.rootRunId,
        ...(run.budgets ? { tenant: context.tenant, budget: callBudget(context.limits) } : {}),
        stepId: `${context.runId}:${index}`,
        stepIndex: index,
        model: agent.model,
        modelSettings: agent.modelSettings,
        ...sent,
        tools,
        agentTools: tools.length ? toolkit.inlineTools : [],
        eventBase: events.base,
        streamDeltas: context.stream === 'full',
        maxOutputBytes: context.limits.maxModelOutputBytes,
        streamIdleMs: context.limits.modelStreamIdleMs,
        ...(handOff?.persist ? { persist: handOff.persist } : {}),
        ...(structured ? { outputFormat: structured.format } : {}),
      }),
    );
  // A spent cost budget pauses the run, and the call is asked again after the raise (runs since COST_BUDGETS_PATCH).
  const ask = (sent: ReturnType<typeof conversationForCall>) =>
    run.budgets ? withinBudget(control, () => callOnce(sent)) : callOnce(sent);
  const { writes } = conversation;
  let sent = conversationForCall(agent.name, conversation.messages, context, bytes, writes);
  const asked = await run.messages.interruptible(() =>
    ask(sent).catch((err) => {
      // The call's worker lacks the messages earlier calls stored (its memory stores were lost, or are not shared):
      // once more, with the whole conversation.
      const attemptsBefore = writes && sent.stored ? conversationNotStored(err) : undefined;
      if (!writes || attemptsBefore === undefined) return failRun(agent.name, err);
      writes.forget();
      sent = { stored: writes.next(conversation.messages, context.tenant, attemptsBefore) };
      return ask(sent).catch((again) => failRun(agent.name, again));
    }),
  );
  if (!asked) {
    // A user message interrupted the call: readers drop what it streamed, and the model is asked again with it.
    await events.emit({
      type: 'STEP_RETRY',
      stepId: `${context.runId}:${index}`,
      attempt: INTERRUPTED_ATTEMPT,
      data: { reason: 'interrupted by a user message; asked again with it' },
    });
    return askModel(run, toolkit, tools);
  }
  const out = asked.out;
  if (sent.stored) writes?.accepted(sent.stored);
  handOff?.accepted();
  counters.modelCalls++;
  counters.usage = addUsage(counters.usage, out.usage);
  counters.ownUsage = addUsage(counters.ownUsage, out.usage);
  await commit(run, out.step);
  return out;
}

/** The user messages waiting (see user-messages.ts) become user steps, in the order they were accepted. */
async function takeUserMessages(run: AgentRun): Promise<void> {
  for (let m = run.messages.take(); m; m = run.messages.take()) {
    const userMessage = { messageId: m.messageId, mode: m.mode, ...(m.by ? { by: m.by } : {}) };
    await commit(run, { ...nextStep(run), role: 'user', content: m.text, metadata: { userMessage } });
  }
}
