// What an agent run carries into continue-as-new must fit in one workflow input far below Temporal's 2 MiB payload
// limit. Older tool outputs are shortened first (the newest turn stays whole); if it still cannot fit, the run fails
// with a clear error instead of failing workflow tasks forever.
import { ApplicationFailure } from '@temporalio/workflow';
import { ErrorType, jsonBytes, type Step } from '../../common';

/**
 * Budget for the whole continue-as-new input, in UTF-8 bytes of JSON (runs patched with CARRY_OVER_PATCH): under
 * Temporal's 2 MiB payload cap with room to spare. A run's input itself is not carried twice (see carriedInput).
 */
export const CARRY_OVER_BUDGET_BYTES = 1_600_000;
/** Longest run input carried as it is into continue-as-new; a longer one is in the carried steps already. */
const CARRIED_INPUT_CHARS = 4096;

/**
 * The `input` a run continues as new with: the original when short; else a note. A resumed run never reads its input
 * again (its first user step, carried with the steps, holds it), so a long input is not carried twice.
 */
export function carriedInput(input: string | unknown[]): string | unknown[] {
  return jsonLength(input) <= CARRIED_INPUT_CHARS ? input : '(the run input: carried in the resumed steps)';
}
const jsonLength = (v: unknown) => JSON.stringify(v).length;
/** Budget for the carried steps, in JSON characters (runs started before CARRY_OVER_PATCH). */
export const CARRY_OVER_BUDGET = 600_000;
const KEEP_CHARS = 1000;

/**
 * The patch under which an agent run, at continue-as-new, stores its steps before it waits for a safe point (a pause
 * accepted during the store is then not lost), counts the input's size in bytes (not characters) over the whole
 * input, and carries its remembered approvals.
 */
export const CARRY_OVER_PATCH = 'agio-carry-over-bytes';

/**
 * Steps to carry: unchanged when they fit, else with older tool outputs cut to a head and a marker. Sizes are JSON
 * characters (runs started before CARRY_OVER_PATCH) or UTF-8 bytes; `fixed` is the size of what goes with them.
 */
export function compactSteps(
  steps: Step[],
  budget = CARRY_OVER_BUDGET,
  opts: { unit?: 'characters' | 'bytes'; fixed?: number } = {},
): Step[] {
  const unit = opts.unit ?? 'characters';
  const measure = (value: unknown) => (unit === 'bytes' ? jsonBytes(value) : JSON.stringify(value).length);
  let total = (opts.fixed ?? 0) + measure(steps);
  if (total <= budget) return steps;
  const lastAssistant = steps.map((s) => s.role).lastIndexOf('assistant');
  const out = [...steps];
  for (let i = 0; i < out.length && total > budget; i++) {
    const step = out[i];
    if (step.role !== 'tool' || i > lastAssistant || !step.content || step.content.length <= KEEP_CHARS) continue;
    const shortened = `${step.content.slice(0, KEEP_CHARS)}\n[… ${step.content.length - KEEP_CHARS} characters omitted when the run continued as new …]`;
    total -= measure(step.content) - measure(shortened);
    out[i] = { ...step, content: shortened, metadata: { ...step.metadata, compacted: true } };
  }
  if (total > budget) {
    throw ApplicationFailure.create({
      type: ErrorType.HistoryTooLarge,
      nonRetryable: true,
      message: `the run's state (${total} ${unit}) does not fit into a continue-as-new input even after shortening older tool outputs; lower maxToolOutputBytes or the number of parallel tool calls`,
    });
  }
  return out;
}

/** The continue-as-new input `build(steps)` makes, with its steps compacted until the whole input fits in bytes. */
export function fittingInput<T>(steps: Step[], build: (steps: Step[]) => T, budget = CARRY_OVER_BUDGET_BYTES): T {
  const fixed = jsonBytes(build([])) - 2; // the input without its steps (`[]` is two bytes)
  return build(compactSteps(steps, budget, { unit: 'bytes', fixed }));
}
