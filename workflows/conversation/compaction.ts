// Conversation compaction: a run whose conversation grows toward maxModelInputBytes goes on instead of failing.
// Before a model call that would send more than the run's compaction threshold, the oldest large parts of the
// conversation (tool outputs, and tool-call arguments such as written file contents) are stored with the tool results
// and replaced with short references the model can read back with get_tool_result, until the conversation is down to
// two thirds of the threshold (so the next few calls keep their prompt prefix). The newest turn and the run's input
// are never compacted; what still does not fit ends the run with ModelInputTooLarge, as before.
import { shortenJsonStrings, utf8Bytes, type RunContext, type Step, type ToolCall } from '../../common';
import type { Emitter } from '../events/emitter';
import { waitedStore } from '../events/store-calls';

/**
 * The patch under which a run compacts its conversation near its model-input limit. Runs started before it replay
 * without compaction (a run that passed the limit then failed with ModelInputTooLarge).
 */
export const COMPACTION_PATCH = 'agio-compaction';

/** Parts smaller than this are left alone: their reference would save little. */
export const MIN_COMPACTED_BYTES = 2048;
/** Characters of a compacted tool output kept ahead of its reference, so the model still sees what it was. */
const OUTPUT_HEAD_CHARS = 200;
/** String values of tool-call arguments longer than this are compacted; shorter ones (paths, names) stay. */
const ARGUMENT_VALUE_BYTES = 512;

/** One part of one step that compaction replaced with a reference. */
export interface CompactedPart {
  stepIndex: number;
  toolCallId: string;
  part: 'output' | 'arguments';
  /** UTF-8 bytes of the content that left the conversation. */
  bytes: number;
  /** Where get_tool_result finds the content. */
  ref: string;
}

/** A part chosen for compaction, with its content and the key it is stored under (`ref` when already stored). */
interface Candidate {
  step: number;
  toolCallId: string;
  part: CompactedPart['part'];
  content: string;
  bytes: number;
  ref?: string;
}

/** The size at which a run compacts (its compactModelInputBytes, or three quarters of maxModelInputBytes). */
export function compactionThreshold(limits: RunContext['limits']): number | undefined {
  if (limits.compactModelInputBytes !== undefined) return limits.compactModelInputBytes;
  return limits.maxModelInputBytes === undefined ? undefined : Math.floor(limits.maxModelInputBytes * 0.75);
}

/**
 * The parts to compact, oldest first, until about `excess` bytes are saved: tool-call arguments of assistant steps
 * and tool outputs, of steps before `before` (the newest turn, and steps not yet stored, stay whole), each at least
 * {@link MIN_COMPACTED_BYTES} and not compacted already.
 */
export function planCompaction(steps: Step[], before: number, excess: number): Candidate[] {
  const chosen: Candidate[] = [];
  let saved = 0;
  for (const step of steps.slice(0, before)) {
    if (saved >= excess) break;
    const done = new Set(compactedParts(step).map((p) => `${p.part}/${p.toolCallId}`));
    const parts: Candidate[] =
      step.role === 'assistant'
        ? (step.toolCalls ?? []).map((call) => ({
            step: step.index,
            toolCallId: call.id,
            part: 'arguments' as const,
            content: call.arguments,
            bytes: utf8Bytes(call.arguments),
          }))
        : step.role === 'tool' && step.content
          ? [
              {
                step: step.index,
                toolCallId: step.toolCallId ?? '',
                part: 'output' as const,
                content: step.content,
                bytes: utf8Bytes(step.content),
                ...(typeof step.metadata?.ref === 'string' ? { ref: step.metadata.ref } : {}),
              },
            ]
          : [];
    for (const part of parts) {
      if (part.bytes < MIN_COMPACTED_BYTES || done.has(`${part.part}/${part.toolCallId}`)) continue;
      chosen.push(part);
      saved += part.bytes;
      if (saved >= excess) break;
    }
  }
  return chosen;
}

/** The parts of a step compaction has already replaced. */
export function compactedParts(step: Step): CompactedPart[] {
  const parts = step.metadata?.compacted;
  return Array.isArray(parts) ? (parts as CompactedPart[]) : [];
}

/** The key a compacted part is stored under: unique in its run even when a provider reuses tool-call ids. */
export function compactedKey(part: Pick<Candidate, 'step' | 'part' | 'toolCallId'>): string {
  return `compacted/${part.step}/${part.part}/${part.toolCallId.slice(0, 200)}`;
}

/** What the model sees instead of a compacted part: what it was, its size and how to read it back. */
function reference(part: Pick<CompactedPart, 'bytes' | 'ref'>, whole: string, readable: boolean): string {
  const read = readable ? `read with get_tool_result {"ref": "${part.ref}"}` : `stored as ${part.ref}`;
  return `[compacted to keep the conversation within the model's input limit; ${whole} (${part.bytes} bytes): ${read}]`;
}

/** Tool-call arguments with their long string values replaced by a reference (still valid JSON, paths kept). */
export function compactArguments(call: ToolCall, part: CompactedPart, readable: boolean): string {
  const note = reference(part, "the call's full arguments", readable);
  const shortened = shortenJsonStrings(call.arguments, ARGUMENT_VALUE_BYTES, () => note);
  if (shortened === 'invalid')
    return JSON.stringify({ compacted: reference(part, "the call's arguments, not valid JSON", readable) });
  // Large without long strings (a big array of numbers): the whole arguments go.
  if (shortened === 'not-shorter')
    return JSON.stringify({ compacted: reference(part, "the call's arguments", readable) });
  return shortened;
}

/** A step with the given parts of it replaced by references. */
export function compactedStep(step: Step, parts: CompactedPart[], readable: boolean): Step {
  const mine = parts.filter((p) => p.stepIndex === step.index);
  if (!mine.length) return step;
  const metadata = { ...step.metadata, compacted: [...compactedParts(step), ...mine] };
  if (step.role === 'tool') {
    const head = step.content!.slice(0, OUTPUT_HEAD_CHARS);
    return { ...step, content: `${head}…\n${reference(mine[0], 'the whole output', readable)}`, metadata };
  }
  const byCall = new Map(mine.map((p) => [p.toolCallId, p]));
  const toolCalls = step.toolCalls?.map((call) =>
    byCall.has(call.id) ? { ...call, arguments: compactArguments(call, byCall.get(call.id)!, readable) } : call,
  );
  return { ...step, ...(toolCalls ? { toolCalls } : {}), metadata };
}

/** Where compaction finds a run's conversation and how it replaces a step in it. */
export interface CompactionTarget {
  steps: Step[];
  /** UTF-8 bytes of the conversation (its JSON) as the next call would send it. */
  bytes(): number;
  /** Steps before this index are stored and not in the newest turn: they may be compacted. */
  compactable(): number;
  /** Puts the compacted copy of a step in place of the step, in the steps and in the conversation. */
  replace(index: number, step: Step): void;
}

/**
 * Compacts the run's conversation, `bytes` long, when it is over the run's threshold: stores the chosen parts (a local
 * activity), replaces them and publishes CONTEXT_COMPACTED. Returns the conversation's size after (unchanged when it
 * was under the threshold or nothing is left to compact).
 */
export async function compactConversation(
  context: RunContext,
  events: Emitter,
  target: CompactionTarget,
  bytes: number,
  readable: boolean,
): Promise<number> {
  const threshold = compactionThreshold(context.limits);
  if (threshold === undefined || bytes <= threshold) return bytes;
  const candidates = planCompaction(target.steps, target.compactable(), bytes - Math.floor((threshold * 2) / 3));
  if (!candidates.length) return bytes;
  const unstored = candidates.filter((c) => !c.ref);
  const refs = unstored.length
    ? await waitedStore().storeCompacted({
        tenant: context.tenant,
        runId: context.runId,
        items: unstored.map((c) => ({ key: compactedKey(c), content: c.content })),
      })
    : [];
  const parts = candidates.map((c): CompactedPart => ({
    stepIndex: c.step,
    toolCallId: c.toolCallId,
    part: c.part,
    bytes: c.bytes,
    ref: c.ref ?? refs[unstored.indexOf(c)],
  }));
  for (const index of new Set(parts.map((p) => p.stepIndex)))
    target.replace(index, compactedStep(target.steps[index], parts, readable));
  const after = target.bytes();
  await events.emit({
    type: 'CONTEXT_COMPACTED',
    data: { items: parts, bytesBefore: bytes, bytesAfter: after, threshold },
  });
  return after;
}
