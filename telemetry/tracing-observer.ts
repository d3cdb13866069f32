// A run observer that exports OpenTelemetry spans after the GenAI semantic conventions: `chat {model}` for each model
// call attempt (from the activity, with the provider's own timing), `execute_tool {tool}` for each tool call and
// `invoke_agent {agent}` / `invoke_workflow {agent}` for each run (from the run's own events, which the wire sink hands
// over once and never while a workflow replays), approvals and pauses as span events.
import { randomBytes } from 'node:crypto';
import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { ChatMessage, RunCompletedData, Step, Usage, WireEvent } from '../common';
import type { ModelCallRecord, RunObserver, WireLog } from '../activities/observer';
import { parentSpanOf, toolSpanCall, toolSpanId } from '../activities/persistence';
import { tracingFromEnv, type Tracing } from './tracing-setup';
import { exportSpan, spanIdOf, traceIdOf, validSpanId, type SpanRecord } from './tracing-spans';

type SpanEvent = NonNullable<SpanRecord['events']>[number];

/** What is known of a run between its start and its end (on this worker). */
interface OpenRun {
  startedAt?: number;
  firstSeen: number;
  kind?: string;
  sessionId?: string;
  events: SpanEvent[];
}

/** How many runs, pending approvals and ended runs the observer remembers (the oldest are forgotten first). */
const MAX_REMEMBERED = 10_000;
/** Span events kept per run (pauses, outages): a run paused a thousand times keeps its first ones. */
const MAX_EVENTS = 128;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}

/** Token counts and cost of a usage, as span attributes. */
export function usageAttributes(usage: Usage | undefined): Attributes {
  if (!usage) return {};
  return {
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
    ...(usage.cachedPromptTokens !== undefined
      ? { 'gen_ai.usage.cache_read.input_tokens': usage.cachedPromptTokens }
      : {}),
    ...(usage.reasoningTokens !== undefined ? { 'agio.usage.reasoning_tokens': usage.reasoningTokens } : {}),
    ...(usage.costUsd !== undefined ? { 'agio.usage.cost_usd': usage.costUsd } : {}),
    ...(usage.costUnknown ? { 'agio.usage.cost_unknown': true } : {}),
  };
}

/** A message in the conventions' shape (role and parts). */
function conventionMessage(m: Pick<ChatMessage, 'role' | 'content' | 'toolCalls' | 'toolCallId'>): unknown {
  const parts: unknown[] = [];
  if (m.content)
    parts.push(
      m.role === 'tool'
        ? { type: 'tool_call_response', id: m.toolCallId, response: m.content }
        : { type: 'text', content: m.content },
    );
  for (const call of m.toolCalls ?? [])
    parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
  return { role: m.role, parts };
}

/** The observer; `tracing` is the process's (see tracingFromEnv). */
export function tracingObserver(tracing: Tracing): RunObserver {
  const runs = new Map<string, OpenRun>();
  const approvals = new Map<string, SpanEvent[]>();
  const ended = new Map<string, true>();

  const openRun = (e: WireEvent) =>
    runs.get(e.runId) ?? remember(runs, e.runId, { firstSeen: e.timestamp, events: [] });
  const runEvent = (e: WireEvent, name: string, attributes: Attributes) => {
    const run = openRun(e);
    if (run.events.length < MAX_EVENTS) run.events.push({ name, time: e.timestamp, attributes });
  };

  function approval(e: WireEvent, name: string): void {
    const data = (e.data ?? {}) as { toolCallId?: string; tool?: string; by?: string; reason?: string };
    const key = `${e.runId}|${data.toolCallId}`;
    const list = approvals.get(key) ?? remember(approvals, key, []);
    const attributes: Attributes = {
      'gen_ai.tool.name': data.tool ?? '',
      'gen_ai.tool.call.id': data.toolCallId ?? '',
    };
    if (data.by) attributes['agio.approval.by'] = data.by;
    if (typeof data.reason === 'string') attributes['agio.approval.reason'] = data.reason;
    if (list.length < MAX_EVENTS) list.push({ name, time: e.timestamp, attributes });
  }

  function toolSpan(e: WireEvent, step: Step): void {
    const startedAt = step.metrics?.startedAt ?? e.timestamp;
    const key = `${e.runId}|${step.toolCallId}`;
    const events = approvals.get(key) ?? [];
    approvals.delete(key);
    const child = step.metadata?.childRunId;
    exportSpan(tracing, {
      name: `execute_tool ${step.name ?? 'tool'}`,
      traceId: traceIdOf(e.rootRunId, e.traceId),
      spanId: spanIdOf(toolSpanId(e.runId, toolSpanCall(e.runId, step))),
      parentSpanId: spanIdOf(e.runId),
      startedAt: Math.min(startedAt, ...events.map((a) => a.time)),
      endedAt: startedAt + (step.metrics?.durationMs ?? 0),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': step.name ?? 'tool',
        'gen_ai.tool.call.id': step.toolCallId ?? '',
        'gen_ai.tool.type': 'function',
        'gen_ai.agent.name': e.agent,
        'agio.run.id': e.runId,
        'agio.tool.outcome': step.isError ? 'error' : 'ok',
        ...(typeof child === 'string' ? { 'agio.tool.child_run_id': child } : {}),
        ...(tracing.captureContent && step.content !== null ? { 'gen_ai.tool.call.result': step.content } : {}),
      },
      events,
      ...(step.isError ? { error: { type: 'ToolError' } } : {}),
    });
  }

  function runSpan(e: WireEvent, log: WireLog | undefined): void {
    // A nested run's end is in its own log and copied (the same event) to its parent's; a later run under a reused id
    // ends at another time.
    const end = `${e.runId}@${e.timestamp}`;
    if (ended.has(end)) return;
    remember(ended, end, true);
    const run = runs.get(e.runId);
    runs.delete(e.runId);
    const data = (e.data ?? {}) as RunCompletedData & { error?: { type: string; message: string }; status?: string };
    // Seen starting here; else (another worker saw the start) its own Wire's chain start, or its duration back.
    const ownStart = log?.workflowId === e.runId ? log.startedAt : undefined;
    const startedAt =
      run?.startedAt ??
      ownStart ??
      (data.metrics ? e.timestamp - data.metrics.durationMs : (run?.firstSeen ?? e.timestamp));
    const workflow = Boolean(run?.kind);
    const operation = workflow ? 'invoke_workflow' : 'invoke_agent';
    const parentKey = parentSpanOf(e);
    const failed = e.type !== 'RUN_COMPLETED';
    exportSpan(tracing, {
      name: `${operation} ${e.agent}`,
      traceId: traceIdOf(e.rootRunId, e.traceId),
      spanId: spanIdOf(e.runId),
      parentSpanId: parentKey ? spanIdOf(parentKey) : validSpanId(e.spanId),
      startedAt,
      endedAt: e.timestamp,
      attributes: {
        'gen_ai.operation.name': operation,
        'gen_ai.agent.name': e.agent,
        'gen_ai.agent.id': e.runId,
        'agio.run.id': e.runId,
        'agio.root_run.id': e.rootRunId,
        'agio.run.depth': e.depth,
        'agio.run.status': data.status ?? e.type.slice(4).toLowerCase(),
        ...(run?.kind ? { 'agio.workflow.kind': run.kind } : {}),
        ...(run?.sessionId ? { 'gen_ai.conversation.id': run.sessionId } : {}),
        ...usageAttributes(e.usage),
      },
      events: run?.events ?? [],
      ...(failed ? { error: { type: data.error?.type ?? e.type, message: data.error?.message } } : {}),
    });
  }

  return {
    modelCall(r: ModelCallRecord) {
      exportSpan(tracing, chatSpan(r, tracing.captureContent));
    },
    runEvents(events: WireEvent[], log?: WireLog) {
      for (const e of events) {
        const data = (e.data ?? {}) as {
          kind?: string;
          sessionId?: string;
          reason?: string;
          by?: string;
          errorType?: string;
        };
        switch (e.type) {
          case 'RUN_STARTED': {
            const run = openRun(e);
            run.startedAt ??= e.timestamp;
            run.kind ??= data.kind;
            run.sessionId ??= data.sessionId;
            break;
          }
          case 'RUN_PAUSED':
          case 'RUN_RESUMED':
            runEvent(e, e.type === 'RUN_PAUSED' ? 'agio.run.paused' : 'agio.run.resumed', {
              ...(data.reason ? { 'agio.reason': data.reason } : {}),
              ...(data.by ? { 'agio.by': data.by } : {}),
            });
            break;
          case 'MODEL_UNAVAILABLE':
            runEvent(e, 'agio.model.unavailable', { 'error.type': data.errorType ?? '' });
            break;
          case 'TOOL_AUTH_REQUIRED':
            approval(e, 'agio.approval.required');
            break;
          case 'TOOL_AUTH_GRANTED':
            approval(e, 'agio.approval.granted');
            break;
          case 'TOOL_AUTH_DENIED':
            approval(e, 'agio.approval.denied');
            break;
          case 'STEP_COMPLETED':
            if (e.snapshot?.role === 'tool' && e.snapshot.toolCallId) toolSpan(e, e.snapshot);
            break;
          case 'RUN_COMPLETED':
          case 'RUN_FAILED':
          case 'RUN_CANCELLED':
            runSpan(e, log);
            break;
        }
      }
    },
  };
}

/** The `chat {model}` span of one model call attempt. */
export function chatSpan(r: ModelCallRecord, captureContent: boolean): SpanRecord {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': r.provider,
    'gen_ai.request.model': r.model,
    ...(r.agent ? { 'gen_ai.agent.name': r.agent } : {}),
    'agio.run.id': r.runId,
    'agio.step.id': r.stepId,
    'agio.attempt': r.attempt,
    ...usageAttributes(r.usage),
    ...(r.finishReason ? { 'gen_ai.response.finish_reasons': [r.finishReason] } : {}),
    ...(r.firstTokenMs !== undefined ? { 'agio.time_to_first_token_ms': r.firstTokenMs } : {}),
  };
  if (captureContent && r.messages)
    attributes['gen_ai.input.messages'] = JSON.stringify(r.messages.map(conventionMessage));
  if (captureContent && r.output) attributes['gen_ai.output.messages'] = JSON.stringify([conventionMessage(r.output)]);
  return {
    name: `chat ${r.model}`,
    kind: SpanKind.CLIENT,
    traceId: traceIdOf(r.rootRunId ?? r.runId, r.traceId),
    // Each attempt is reported once, by the worker that ran it, and nothing hangs under it: a random id serves.
    spanId: randomBytes(8).toString('hex'),
    parentSpanId: spanIdOf(r.runId),
    startedAt: r.startedAt,
    endedAt: r.startedAt + r.durationMs,
    attributes,
    ...(r.firstTokenMs !== undefined
      ? { events: [{ name: 'gen_ai.first_token', time: r.startedAt + r.firstTokenMs }] }
      : {}),
    ...(r.errorType ? { error: { type: r.errorType } } : {}),
  };
}

/** The tracing observer when the environment asks for traces (see tracingFromEnv), with its process's tracing. */
export function tracingObserverFromEnv(
  defaultService: string,
  env: NodeJS.ProcessEnv = process.env,
): { observer: RunObserver; tracing: Tracing } | undefined {
  const tracing = tracingFromEnv(defaultService, env);
  return tracing && { observer: tracingObserver(tracing), tracing };
}
