// Turns a session's stored steps back into the messages that start its next run.
import { jsonBytes, shortenJsonStrings, stepToMessage, utf8Bytes, type ChatMessage, type Step } from '../common';
import type { RunRecord } from './records';

/** True for a run no other run started (its own root). */
export function isRootRun(run: RunRecord): boolean {
  return run.runId === run.rootRunId;
}

/** Whether a run's steps belong to its session's conversation: a root run that was not rolled back. */
export function inSessionConversation(run: RunRecord): boolean {
  return isRootRun(run) && !run.rolledBack;
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

/** Parts of an earlier run shorter than this stay whole when a session's conversation is fitted. */
const MIN_SHORTENED_BYTES = 2048;
/** Characters of a shortened text kept ahead of its note. */
const HEAD_CHARS = 200;

const omitted = (bytes: number) =>
  `[${bytes} bytes of an earlier run of this session left out to keep the conversation within the model's input limit]`;

/** Tool-call arguments with their long string values replaced by a note (still valid JSON, short values kept). */
function shortenArguments(args: string): string {
  const shortened = shortenJsonStrings(args, 512, omitted);
  return shortened === 'invalid' || shortened === 'not-shorter'
    ? JSON.stringify({ omitted: omitted(utf8Bytes(args)) })
    : shortened;
}

/** A message with its large text and tool-call arguments shortened. */
function shortenMessage(m: ChatMessage): ChatMessage {
  const content =
    m.content && utf8Bytes(m.content) > MIN_SHORTENED_BYTES
      ? `${m.content.slice(0, HEAD_CHARS)}…\n${omitted(utf8Bytes(m.content))}`
      : m.content;
  const toolCalls = m.toolCalls?.map((c) =>
    utf8Bytes(c.arguments) > MIN_SHORTENED_BYTES ? { ...c, arguments: shortenArguments(c.arguments) } : c,
  );
  return { ...m, content, ...(toolCalls ? { toolCalls } : {}) };
}

/**
 * A session's earlier conversation fitted into `maxBytes` (UTF-8 bytes of its JSON), so the next run can start with
 * it: large texts and tool-call arguments are shortened oldest first; if that is not enough, the oldest messages are
 * dropped, up to a user message, so no tool result is left without its call.
 */
export function fitConversation(messages: ChatMessage[], maxBytes: number): ChatMessage[] {
  const size = (ms: ChatMessage[]) => jsonBytes(ms);
  let total = size(messages);
  if (total <= maxBytes) return messages;
  const out = [...messages];
  for (let i = 0; i < out.length && total > maxBytes; i++) {
    const shortened = shortenMessage(out[i]);
    total -= size([out[i]]) - size([shortened]);
    out[i] = shortened;
  }
  while (out.length && total > maxBytes) total -= size([out.shift()!]) + 1;
  while (out.length && out[0].role !== 'user') out.shift();
  return out;
}
