// What an agent run carries into continue-as-new must fit in one workflow input far below Temporal's message
// limits. Older tool outputs are shortened first (the newest turn stays whole); if it still cannot fit, the
// run fails with a clear error instead of failing workflow tasks forever.
import { ApplicationFailure } from '@temporalio/workflow';
import type { Step } from '../common';

/** Budget for the carried conversation, in JSON characters (conservative: multibyte text is larger in bytes). */
export const CARRY_OVER_BUDGET = 600_000;
const KEEP_CHARS = 1000;

/** Steps to carry: unchanged when they fit, else with older tool outputs cut to a head and a marker. */
export function compactSteps(steps: Step[], budget = CARRY_OVER_BUDGET): Step[] {
  let size = JSON.stringify(steps).length;
  if (size <= budget) return steps;
  const lastAssistant = steps.map((s) => s.role).lastIndexOf('assistant');
  const out = [...steps];
  for (let i = 0; i < out.length && size > budget; i++) {
    const step = out[i];
    if (step.role !== 'tool' || i > lastAssistant || !step.content || step.content.length <= KEEP_CHARS) continue;
    const shortened = `${step.content.slice(0, KEEP_CHARS)}\n[… ${step.content.length - KEEP_CHARS} characters omitted when the run continued as new …]`;
    size -= JSON.stringify(step.content).length - JSON.stringify(shortened).length;
    out[i] = { ...step, content: shortened, metadata: { ...step.metadata, compacted: true } };
  }
  if (size > budget) {
    throw ApplicationFailure.create({
      type: 'HistoryTooLarge',
      nonRetryable: true,
      message: `the conversation (${size} characters) does not fit into a continue-as-new input even after shortening older tool outputs; lower maxToolOutputBytes or the number of parallel tool calls`,
    });
  }
  return out;
}
