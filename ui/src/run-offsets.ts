// The viewer's bookkeeping of durable offsets: per log (the root's, and each nested run's own log when it keeps one;
// older trees: all in the root's log), so a resumed stream's repeats are dropped and holes are counted, the pointers
// to nested runs' logs (which are not streamed) excepted.
import type { WireEvent } from '../../common';
import type { RunTree } from './run-view';

const TERMINAL: readonly string[] = ['RUN_COMPLETED', 'RUN_FAILED', 'RUN_CANCELLED'];

/** The id of the run whose log holds `event` (the frame of its offset). */
const logOf = (event: WireEvent): string => ((event as { ownLog?: boolean }).ownLog ? event.runId : event.rootRunId);

/** Counts `n` offsets skipped in `log` (negative: pointers that explain skipped offsets); gaps are the unexplained. */
function skipped(tree: RunTree, log: string, n: number): void {
  const before = tree.unexplained[log] ?? 0;
  tree.unexplained[log] = before + n;
  tree.gaps += Math.max(0, before + n) - Math.max(0, before);
}

/** Records a durable event's offset in its log; false when the tree already has it (a repeat). */
export function countOffset(tree: RunTree, event: WireEvent): boolean {
  const log = logOf(event);
  const last = tree.logs[log];
  if (last !== undefined && event.offset <= last) return false;
  if (last !== undefined) skipped(tree, log, event.offset - last - 1);
  // Each nested run with its own log has two pointers in its parent's log, which are not streamed: its start (before
  // its first event) and its end (before its terminal event); they explain two skipped offsets there.
  const own = (event as { ownLog?: boolean }).ownLog && event.runId === log && event.parentRunId;
  if (own && (last === undefined || TERMINAL.includes(event.type))) {
    skipped(tree, event.parentRunId!, -1);
    tree.pointers++;
  }
  tree.logs[log] = event.offset;
  tree.topLog ??= log;
  if (log === tree.topLog) {
    tree.firstOffset ??= event.offset;
    tree.lastOffset = event.offset;
  }
  return true;
}
