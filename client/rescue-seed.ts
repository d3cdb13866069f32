// The steps a retry or fork starts from, cut from the source run's stored steps: pure, so every rule about where a
// conversation may be cut (never between a tool call and its result) is tested without a server.
import type { Step } from '../common';
import { RescueRefusedError } from './rescue-errors';

/** What a fork changes at its step: the tool result or user message there (the other edits change the agent). */
export interface StepEdits {
  /** The result the tool step at the fork's step returns instead (the step must be a tool result). */
  toolResult?: string;
  /** The user message at the fork's step instead (the step must be a user message). */
  userMessage?: string;
}

/** The tool calls of an assistant step that no later step answers. */
function unanswered(steps: Step[], at: number): string[] {
  const answered = new Set(steps.slice(at + 1).map((s) => s.toolCallId));
  return (steps[at].toolCalls ?? []).map((c) => c.id).filter((id) => !answered.has(id));
}

/**
 * A retry's steps: every completed step of the source. A last turn whose tool calls did not all get their result (the
 * run ended while its tools ran) is dropped from its assistant step on: the retry asks the model that turn again.
 */
export function retrySteps(steps: Step[]): Step[] {
  const lastCalls = steps.map((s) => s.role === 'assistant' && (s.toolCalls?.length ?? 0) > 0).lastIndexOf(true);
  const kept = lastCalls >= 0 && unanswered(steps, lastCalls).length ? steps.slice(0, lastCalls) : steps;
  if (!kept.some((s) => s.role === 'user'))
    throw new RescueRefusedError('no_steps', 'the run has no completed step to continue from: start it again instead');
  return kept;
}

/**
 * A fork's steps at `at`: the steps before it, then that step edited. An assistant step is asked again (no step edit);
 * a tool step needs `toolResult`, and the other results of its turn are kept as they were; a user step is kept, or
 * replaced by `userMessage`. Step 0 (the instructions) is changed with the agent's instructions, not forked at.
 */
export function forkSteps(steps: Step[], at: number, edits: StepEdits = {}): Step[] {
  if (!Number.isInteger(at) || at < 0 || at >= steps.length)
    throw new RescueRefusedError(
      'step_out_of_range',
      `step ${at} is out of range: the run has ${steps.length} recorded steps (0-${steps.length - 1})`,
    );
  const step = steps[at];
  const refuse = (message: string) =>
    new RescueRefusedError('step_mismatch', `step ${at} is a ${step.role} step: ${message}`);
  if (step.role === 'system') throw refuse('change the instructions with edits.instructions and fork at a later step');
  if (edits.toolResult !== undefined && step.role !== 'tool') throw refuse('only a tool step takes edits.toolResult');
  if (edits.userMessage !== undefined && step.role !== 'user') throw refuse('only a user step takes edits.userMessage');
  const before = steps.slice(0, at);
  if (step.role === 'assistant') return before;
  if (step.role === 'user')
    return [...before, edits.userMessage === undefined ? step : edited(step, edits.userMessage)];
  if (edits.toolResult === undefined) throw refuse('a fork at a tool result replaces it: give edits.toolResult');
  // The turn's other results stay, so every call of the assistant step still has its answer.
  let end = at + 1;
  while (end < steps.length && steps[end].role === 'tool') end++;
  return [...before, edited(step, edits.toolResult), ...steps.slice(at + 1, end)];
}

/** A step with new content, marked edited (its old metadata, e.g. a stored full output, no longer applies). */
function edited(step: Step, content: string): Step {
  const { isError: _isError, metadata: _metadata, ...rest } = step;
  return { ...rest, content, metadata: { edited: true } };
}
