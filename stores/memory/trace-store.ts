// TraceStore in memory: spans in a Map, trees built on read.
import { SpanInput, isId, parseRecord, type Span, type Trace } from '../records';
import { buildTrace } from '../trace-tree';
import type { TraceStore } from '../types';
import { TenantMap } from './tenant-map';

/** Spans in Maps; lost when the process exits. */
export class MemoryTraceStore implements TraceStore {
  private readonly spans = new TenantMap<Span>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async recordSpan(input: SpanInput): Promise<void> {
    const { tenant, ...span } = parseRecord(SpanInput, input);
    const stored = this.spans.get(tenant, span.spanId);
    if (stored && stored.status !== 'running' && span.status === 'running') return;
    this.spans.set(tenant, span.spanId, { ...stored, ...span });
  }

  async getTrace(tenant: string, traceId: string): Promise<Trace | undefined> {
    if (!isId(tenant) || !isId(traceId)) return undefined;
    const spans = this.spans.filter(tenant, (s) => s.traceId === traceId);
    return spans.length ? buildTrace(traceId, spans) : undefined;
  }
}
