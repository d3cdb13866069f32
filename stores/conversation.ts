// Turns a session's stored steps back into the messages that start its next run.
import { stepToMessage, type ChatMessage, type Step } from '../common';
import type { RunRecord } from './records';

/** True for a run no other run started (its own root). */
export function isRootRun(run: RunRecord): boolean {
  return run.runId === run.rootRunId;
}

/**
 * The messages of each run's steps, in the order given, without system steps. A run that stopped between a
 * model's tool calls and their results (cancelled, failed) would leave calls with no answer, which a model API
 * rejects; those calls are dropped, and so is an assistant message left with nothing to say.
 */
export function conversationFromSteps(runs: Step[][]): ChatMessage[] {
  return runs.flatMap((steps) => {
    const answered = new Set(steps.flatMap((s) => (s.role === 'tool' && s.toolCallId ? [s.toolCallId] : [])));
    const asked = new Set<string>();
    const messages: ChatMessage[] = [];
    for (const step of steps) {
      if (step.role === 'system') continue;
      if (step.role === 'tool') {
        if (step.toolCallId && asked.has(step.toolCallId)) messages.push(stepToMessage(step));
        continue;
      }
      const calls = step.toolCalls?.filter((c) => answered.has(c.id));
      calls?.forEach((c) => asked.add(c.id));
      if (step.toolCalls?.length && !calls?.length && !step.content) continue;
      messages.push(stepToMessage({ ...step, toolCalls: calls }));
    }
    return messages;
  });
}
