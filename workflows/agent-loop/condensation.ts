// Conversation condensation: what compaction cannot keep bounded. Compaction swaps large parts for references, but
// every step still leaves its call and its reference behind, so a run of hundreds of steps outgrows its model input
// anyway. When a conversation is still over the compaction threshold after compacting, the oldest whole turns are
// condensed: the model writes a summary of them (one model call, its usage counted like any other), the summary
// takes the first condensed step's place as a user message, and the other condensed steps leave the conversation.
// Their originals stay in the run's stored steps (and their large parts in the tool results), and the summary names
// the step range so the model (and a person) knows where they are. A later condensation folds the summary in.
import { isCancellation } from '@temporalio/workflow';
import { addUsage, jsonBytes, type ChatMessage, type Step } from '../../common';
import type { AgentRun } from './agent-run-state';

/**
 * The patch under which a run condenses its older turns; runs started before it replay without condensation. Asked
 * for where compaction's patch is (see ask-model.ts), before any store write of that turn.
 */
export const CONDENSATION_PATCH = 'agio-condensation';

/** Marks the system prompt of a condensation call (tests and logs can tell these calls apart). */
export const CONDENSATION_MARKER = 'You condense the working history of an AI agent';

const CONDENSATION_PROMPT = `${CONDENSATION_MARKER} so that it can go on with its task without the full transcript.
Write a concise summary, in plain prose and short lists, that keeps everything the agent needs next: the task and its
constraints, decisions taken and why, facts learned (names, numbers, paths, identifiers, references such as tr_… that
get_tool_result can read back), files created or changed, errors met, and what remains to be done. Leave out chatter.`;

/** The least share of the threshold a condensation must take out of the conversation to be worth a model call. */
const MIN_CONDENSED_SHARE = 0.25;
/** Characters of the transcript one condensation call sends at most (the model's input stays small). */
const MAX_TRANSCRIPT_CHARS = 48_000;
/** Characters kept of each part of a condensed step in the transcript. */
const PART_CHARS = { content: 1200, arguments: 300, output: 600 } as const;

/** Step metadata of a summary: which steps it stands for. */
export interface Condensation {
  /** First and last (exclusive) index of the condensed steps. */
  fromStep: number;
  toStep: number;
  /** How many times this run has condensed. */
  round: number;
}

/** The condensation a step records, if it is a summary. */
export function condensationOf(step: Step): Condensation | undefined {
  const c = step.metadata?.condensation as Condensation | undefined;
  return c && typeof c.fromStep === 'number' ? c : undefined;
}

/** Whether a step was condensed into a summary (it contributes no message to the conversation). */
export function isCondensed(step: Step): boolean {
  return typeof step.metadata?.condensedInto === 'number';
}

/**
 * Where the condensable range starts: the first assistant step (instructions and input stay), or an earlier
 * summary, which the next summary folds in.
 */
export function condensableStart(steps: Step[]): number {
  const summary = steps.findIndex((s) => condensationOf(s) !== undefined);
  if (summary >= 0) return summary;
  const first = steps.findIndex((s) => s.role === 'assistant');
  return first < 0 ? steps.length : first;
}

/**
 * The end (exclusive) of the steps to condense: the first turn boundary (an assistant step, so tool results stay with
 * their call) at or before `limit` after which the conversation's messages of `from..end` weigh at least `excess`
 * bytes; the latest boundary before `limit` when none does. `from` itself when nothing can be condensed.
 */
export function planCondensation(
  steps: Step[],
  from: number,
  limit: number,
  excess: number,
  bytesOf: (s: Step) => number,
): number {
  let end = from;
  let saved = 0;
  for (let i = from; i < limit; i++) {
    saved += bytesOf(steps[i]);
    const boundary = i + 1 < steps.length && steps[i + 1].role === 'assistant' && i + 1 <= limit;
    if (boundary) end = i + 1;
    if (boundary && saved >= excess) break;
  }
  return end;
}

/** The transcript of steps `from..to` a condensation call reads, each part cut to a few hundred characters. */
export function transcript(steps: Step[], from: number, to: number): string {
  const cut = (text: string, max: number) =>
    text.length > max ? `${text.slice(0, max)}… [${text.length} chars]` : text;
  const lines: string[] = [];
  for (const step of steps.slice(from, to)) {
    const summary = condensationOf(step);
    if (summary)
      lines.push(`[earlier summary of steps ${summary.fromStep}–${summary.toStep - 1}]\n${step.content ?? ''}`);
    else if (isCondensed(step)) continue;
    else if (step.role === 'tool')
      lines.push(
        `[step ${step.index}] tool ${step.name ?? ''} result${step.isError ? ' (error)' : ''}: ${cut(step.content ?? '', PART_CHARS.output)}`,
      );
    else {
      const calls = (step.toolCalls ?? []).map((c) => `${c.name}(${cut(c.arguments, PART_CHARS.arguments)})`);
      const text = step.content ? cut(step.content, PART_CHARS.content) : '';
      lines.push(`[step ${step.index}] ${step.role}: ${text}${calls.length ? ` calls: ${calls.join('; ')}` : ''}`);
    }
  }
  const whole = lines.join('\n');
  if (whole.length <= MAX_TRANSCRIPT_CHARS) return whole;
  // Keep the earlier summary and the newest lines: the middle goes first.
  const head = whole.slice(0, MAX_TRANSCRIPT_CHARS / 3);
  const tail = whole.slice(whole.length - (MAX_TRANSCRIPT_CHARS * 2) / 3);
  return `${head}\n[… ${whole.length - head.length - tail.length} characters of this transcript left out …]\n${tail}`;
}

/** The message a summary puts in the conversation. */
export function summaryContent(c: Condensation, summary: string): string {
  return (
    `[Summary of this run's steps ${c.fromStep}–${c.toStep - 1}, condensed to keep the conversation within the ` +
    `model's input limit; the original steps are stored with the run.]\n${summary}`
  );
}

/**
 * Condenses the oldest turns of the run's conversation when it is still over `threshold` bytes after compaction,
 * down to about half the threshold. Returns the conversation's size after (unchanged when nothing could be
 * condensed, or the summary call failed: the run then goes on as it would have without condensation).
 */
export async function condenseConversation(run: AgentRun, bytes: number, threshold: number): Promise<number> {
  if (bytes <= threshold) return bytes;
  const { conversation, context, agent, events, recorder, counters } = run;
  const steps = conversation.steps;
  const from = condensableStart(steps);
  const limit = Math.min(recorder.written, steps.map((s) => s.role).lastIndexOf('assistant'));
  const bytesOf = (s: Step) => {
    const message = conversation.messageFor(s);
    return message ? jsonBytes(message) : 0;
  };
  const to = planCondensation(steps, from, limit, bytes - Math.floor(threshold / 2), bytesOf);
  // A single step, or old turns too small to matter (what is large is the input or the newest turn, which stay):
  // a summary would cost a model call and gain little.
  const condensable = steps.slice(from, to).reduce((n, s) => n + bytesOf(s), 0);
  if (to - from < 2 || condensable < threshold * MIN_CONDENSED_SHARE) return bytes;
  const round = (condensationOf(steps[from])?.round ?? 0) + 1;
  const condensation: Condensation = { fromStep: condensationOf(steps[from])?.fromStep ?? from, toStep: to, round };
  const messages: ChatMessage[] = [
    { role: 'system', content: CONDENSATION_PROMPT },
    {
      role: 'user',
      content: `The agent's task:\n${firstUserText(steps)}\n\nIts history so far:\n${transcript(steps, from, to)}`,
    },
  ];
  let out: Awaited<ReturnType<AgentRun['callModel']>>;
  try {
    out = await run.control.track(
      run.callModel({
        runId: context.runId,
        rootRunId: context.rootRunId,
        stepId: `${context.runId}:condensation:${round}`,
        stepIndex: from,
        model: agent.model,
        modelSettings: agent.modelSettings,
        messages,
        tools: [],
        streamDeltas: false,
        maxOutputBytes: context.limits.maxModelOutputBytes,
        streamIdleMs: context.limits.modelStreamIdleMs,
      }),
    );
  } catch (err) {
    // A run being cancelled stops here; a failed summary only leaves the conversation as it was.
    if (isCancellation(err)) throw err;
    await events.emit({ type: 'ERROR', data: { error: { type: 'CondensationFailed', message: String(err) } } });
    return bytes;
  }
  counters.usage = addUsage(counters.usage, out.usage);
  counters.ownUsage = addUsage(counters.ownUsage, out.usage);
  const original = steps[from];
  const summary: Step = {
    id: original.id,
    runId: original.runId,
    index: from,
    role: 'user',
    content: summaryContent(condensation, out.step.content ?? ''),
    usage: out.usage,
    metadata: { condensation },
  };
  conversation.condense(from, to, summary);
  const after = jsonBytes(conversation.messages);
  await events.emit({
    type: 'CONTEXT_CONDENSED',
    usage: out.usage,
    data: { ...condensation, summary: summary.content, bytesBefore: bytes, bytesAfter: after, threshold },
  });
  return after;
}

/** The run's first user message (its task), cut to a few thousand characters. */
function firstUserText(steps: Step[]): string {
  const text = steps.find((s) => s.role === 'user' && !condensationOf(s))?.content ?? '';
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}
