// The records the stores keep: zod schemas for what callers write (validated once, on the way in), with
// z.infer types of the same name, and the plain shapes the stores hand back.
import { z } from 'zod';
import { RunPhase, Usage } from '../common';

/** An identifier: tenant, session, run, span, tool call. Non-empty, bounded, always a string. */
export const RecordId = z.string().min(1).max(512);

/** True for a value usable as an id in a read; anything else (empty, non-string, an object) reads as unknown. */
export function isId(value: unknown): value is string {
  return RecordId.safeParse(value).success;
}

/** What `upsertSession` writes: fields given replace the stored ones, fields absent are kept. */
export const SessionInput = z.object({
  tenant: RecordId,
  sessionId: RecordId,
  userId: RecordId.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/** What `upsertSession` writes. */
export type SessionInput = z.infer<typeof SessionInput>;

/** A stored session (without its tenant). */
export interface Session {
  sessionId: string;
  userId?: string;
  metadata?: Record<string, unknown>;
  /** Epoch milliseconds of the first write. */
  createdAt: number;
  /** Epoch milliseconds of the last write (a session write or a run recorded in it). */
  updatedAt: number;
}

/** What `recordRun` writes (upserted by runId). */
export const RunInput = z.object({
  tenant: RecordId,
  sessionId: RecordId.optional(),
  runId: RecordId,
  rootRunId: RecordId,
  parentRunId: RecordId.optional(),
  agent: z.string(),
  status: RunPhase,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  usage: Usage.optional(),
  /** Set by rollBackRun: the run's steps are no longer part of its session's conversation. */
  rolledBack: z.boolean().optional(),
});
/** What `recordRun` writes. */
export type RunInput = z.infer<typeof RunInput>;

/** A stored run (without its tenant). */
export type RunRecord = Omit<RunInput, 'tenant'>;

/** A session with its runs, oldest first. */
export interface SessionWithRuns extends Session {
  runs: RunRecord[];
}

/** What a span times: a whole run, one model call, or one tool call. */
export const SpanKind = z.enum(['run', 'model', 'tool']);
/** What a span times. */
export type SpanKind = z.infer<typeof SpanKind>;
/** How a span ended; `running` until it does. */
export const SpanStatus = z.enum(['ok', 'error', 'running']);
/** How a span ended. */
export type SpanStatus = z.infer<typeof SpanStatus>;

/** What `recordSpan` writes (upserted by spanId; a finished write completes a running one). */
export const SpanInput = z.object({
  tenant: RecordId,
  /** The root run's id. */
  traceId: RecordId,
  spanId: RecordId,
  parentSpanId: RecordId.optional(),
  kind: SpanKind,
  name: z.string(),
  runId: RecordId,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  status: SpanStatus,
  usage: Usage.optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});
/** What `recordSpan` writes. */
export type SpanInput = z.infer<typeof SpanInput>;

/** A stored span (without its tenant). */
export type Span = Omit<SpanInput, 'tenant'>;

/** A span with its children; `totalUsage` sums the usage of every model span in this subtree. */
export interface TraceNode {
  span: Span;
  totalUsage: Usage;
  children: TraceNode[];
}

/** A root run's trace: its spans by start time, and the same spans nested by parentSpanId. */
export interface Trace {
  traceId: string;
  spans: Span[];
  tree: TraceNode[];
}

/** A source a web tool cited. */
export const CitationSource = z.object({
  url: z.string().min(1),
  title: z.string().optional(),
  snippet: z.string().optional(),
});
/** A source a web tool cited. */
export type CitationSource = z.infer<typeof CitationSource>;

/** What `addCitations` writes: the sources of one tool call. */
export const CitationInput = z.object({
  runId: RecordId,
  stepId: RecordId,
  toolCallId: RecordId,
  sources: z.array(CitationSource),
});
/** What `addCitations` writes. */
export type CitationInput = z.infer<typeof CitationInput>;

/** A stored citation: one source of one tool call. */
export interface Citation extends CitationSource {
  runId: string;
  stepId: string;
  toolCallId: string;
  /** Epoch milliseconds of the first write. */
  createdAt: number;
}

/** What `ToolResultStore.put` writes: the full output of one tool call. */
export const ToolResultInput = z.object({
  runId: RecordId,
  toolCallId: RecordId,
  /** The tool step (`<runId>:<index>`): two calls of a run with the same id get their own refs. */
  stepId: RecordId.optional(),
  content: z.string(),
});
/** What `ToolResultStore.put` writes. */
export type ToolResultInput = z.infer<typeof ToolResultInput>;

/** Validates a write and drops undefined fields, so a partial write never erases a stored field. */
export function parseRecord<S extends z.ZodType<object>>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.parse(value);
  return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as z.infer<S>;
}
