// Builds a trace's span tree: spans nested by parentSpanId, each node with the model usage of its subtree.
import { addUsage, ZERO_USAGE } from '../common';
import type { Span, Trace, TraceNode } from './records';

/** Orders spans by start time, then id, so every store returns the same order. */
function bySpanStart(a: Span, b: Span): number {
  return a.startedAt - b.startedAt || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0);
}

/**
 * The trace of `spans`. A span whose parent is not in the trace (not recorded yet, or recorded under another
 * trace) becomes a root, so no span is ever hidden; parent links that form a cycle are cut.
 */
export function buildTrace(traceId: string, spans: Span[]): Trace {
  const sorted = [...spans].sort(bySpanStart);
  const ids = new Set(sorted.map((s) => s.spanId));
  const children = new Map<string, Span[]>();
  for (const span of sorted) {
    if (span.parentSpanId && ids.has(span.parentSpanId) && span.parentSpanId !== span.spanId) {
      children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span]);
    }
  }
  const placed = new Set<string>();
  const grow = (span: Span): TraceNode => {
    placed.add(span.spanId);
    const kids = (children.get(span.spanId) ?? []).filter((c) => !placed.has(c.spanId)).map(grow);
    const own = span.kind === 'model' ? addUsage(ZERO_USAGE, span.usage) : ZERO_USAGE;
    return { span, totalUsage: kids.reduce((sum, k) => addUsage(sum, k.totalUsage), own), children: kids };
  };
  const tree: TraceNode[] = [];
  for (const span of sorted) {
    const hasParent = span.parentSpanId !== undefined && children.get(span.parentSpanId)?.includes(span);
    if (!hasParent) tree.push(grow(span));
  }
  // Spans only reachable through a cycle have a parent but no root above them.
  for (const span of sorted) if (!placed.has(span.spanId)) tree.push(grow(span));
  return { traceId, spans: sorted, tree };
}
