// Finished spans with ids of our own: a run's spans are built from what it reports once (its events, its calls' ends),
// with ids derived from the run, the call and the step, so every worker that reports a part of a run names it alike.
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { TRACER_NAME, type Tracing } from './tracing-setup';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** The tree's trace id: the one its client started it under (RunContext.traceId), else one derived from its root. */
export function traceIdOf(rootRunId: string, traceId?: string): string {
  if (traceId && TRACE_ID.test(traceId) && !/^0+$/.test(traceId)) return traceId;
  return createHash('sha256').update(`agio-trace:${rootRunId}`).digest('hex').slice(0, 32);
}

/** The span id of `key` (a run id, a tool span key, a model call attempt): the same on every worker. */
export function spanIdOf(key: string): string {
  return createHash('sha256').update(`agio-span:${key}`).digest('hex').slice(0, 16);
}

/** A span id handed in from outside (RunContext.spanId) when it is a valid one. */
export function validSpanId(spanId: string | undefined): string | undefined {
  return spanId && SPAN_ID.test(spanId) && !/^0+$/.test(spanId) ? spanId : undefined;
}

/** A finished span to export. */
export interface SpanRecord {
  name: string;
  kind?: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number;
  attributes: Attributes;
  events?: { name: string; time: number; attributes?: Attributes }[];
  /** The error's type, when the span's operation failed. */
  error?: { type: string; message?: string };
}

/** Hands a finished span to the export pipeline (as a span the SDK ended would be). */
export function exportSpan(tracing: Tracing, record: SpanRecord): void {
  tracing.processor.onEnd(readableSpan(tracing, record));
}

function readableSpan(tracing: Tracing, r: SpanRecord): ReadableSpan {
  const startTime = millisToHrTime(r.startedAt);
  const endTime = millisToHrTime(Math.max(r.endedAt, r.startedAt));
  const context: SpanContext = { traceId: r.traceId, spanId: r.spanId, traceFlags: TraceFlags.SAMPLED };
  const events: TimedEvent[] = (r.events ?? []).map((e) => ({
    name: e.name,
    time: millisToHrTime(e.time),
    ...(e.attributes ? { attributes: e.attributes } : {}),
  }));
  return {
    name: r.name,
    kind: r.kind ?? SpanKind.INTERNAL,
    spanContext: () => context,
    ...(r.parentSpanId
      ? { parentSpanContext: { traceId: r.traceId, spanId: r.parentSpanId, traceFlags: TraceFlags.SAMPLED } }
      : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: r.error ? { code: SpanStatusCode.ERROR, message: r.error.message ?? r.error.type } : { code: 0 },
    attributes: r.error ? { ...r.attributes, 'error.type': r.error.type } : r.attributes,
    links: [],
    events,
    ended: true,
    resource: tracing.resource,
    instrumentationScope: { name: TRACER_NAME },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
