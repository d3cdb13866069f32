// The tracing observer's spans from a run's events and calls (pure: a processor that keeps what it is handed), and
// which OTEL_* settings turn traces on.
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { emptyResource } from '@opentelemetry/resources';
import type { WireEvent } from '../../common';
import { tracingObserver } from '../../telemetry/tracing-observer';
import { tracesExporterOf, type Tracing } from '../../telemetry/tracing-setup';
import { spanIdOf, traceIdOf } from '../../telemetry/tracing-spans';

function capture(): { tracing: Tracing; spans: ReadableSpan[] } {
  const spans: ReadableSpan[] = [];
  const processor = { onEnd: (s: ReadableSpan) => spans.push(s) } as unknown as SpanProcessor;
  const tracing: Tracing = {
    processor,
    resource: emptyResource(),
    captureContent: false,
    flush: async () => undefined,
    shutdown: async () => undefined,
  };
  return { tracing, spans };
}

let offset = 0;
const event = (type: string, runId: string, extra: Partial<WireEvent> = {}): WireEvent =>
  ({
    type,
    runId,
    rootRunId: 'run-root',
    agent: 'a',
    depth: 0,
    offset: offset++,
    timestamp: 1000 + offset,
    ...extra,
  }) as WireEvent;

describe('tracing observer', () => {
  it('names a workflow agent invoke_workflow, hangs its sub-agent under it and puts pauses on it as events', () => {
    const { tracing, spans } = capture();
    const observer = tracingObserver(tracing);
    const child = { parentRunId: 'run-root', depth: 1, agent: 'step-one' };
    observer.runEvents!([
      event('RUN_STARTED', 'run-root', { agent: 'loop', data: { kind: 'loop', sessionId: 's-1' }, timestamp: 500 }),
      event('RUN_PAUSED', 'run-root', { agent: 'loop', data: { reason: 'budget', by: 'agio' } }),
      event('RUN_RESUMED', 'run-root', { agent: 'loop', data: { by: 'ops' } }),
    ]);
    // A sub-agent's end is in its own log and copied to its parent's: one span.
    const end = event('RUN_COMPLETED', 'run-root/sub/0', { ...child, data: {} });
    observer.runEvents!([event('RUN_STARTED', 'run-root/sub/0', child), end]);
    observer.runEvents!([end]);
    observer.runEvents!([event('RUN_COMPLETED', 'run-root', { agent: 'loop', data: {}, timestamp: 2000 })]);

    expect(spans.map((s) => s.name)).toEqual(['invoke_agent step-one', 'invoke_workflow loop']);
    const [sub, root] = spans;
    expect(sub.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(root.spanContext()).toMatchObject({ traceId: traceIdOf('run-root'), spanId: spanIdOf('run-root') });
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'agio.workflow.kind': 'loop',
      'gen_ai.conversation.id': 's-1',
    });
    expect(root.events.map((e) => [e.name, e.attributes])).toEqual([
      ['agio.run.paused', { 'agio.reason': 'budget', 'agio.by': 'agio' }],
      ['agio.run.resumed', { 'agio.by': 'ops' }],
    ]);
    expect(root.startTime).toEqual([0, 500_000_000]);
  });

  it("starts a run it saw end only from its Wire's chain start or its metrics, and marks a failed run with its error type", () => {
    const { tracing, spans } = capture();
    const observer = tracingObserver(tracing);
    observer.runEvents!([
      event('RUN_COMPLETED', 'run-a', { timestamp: 10_000, data: { metrics: { durationMs: 4000 } } as never }),
      event('RUN_FAILED', 'run-b', { data: { error: { type: 'MaxStepsExceeded', message: 'too many' } } }),
    ]);
    expect(spans[0].startTime).toEqual([6, 0]);
    // Its own Wire's chain start, when the sink says whose Wire it is.
    observer.runEvents!([event('RUN_CANCELLED', 'run-c', { timestamp: 9000, data: {} })], {
      workflowId: 'run-c',
      startedAt: 3000,
    });
    expect(spans[2].startTime).toEqual([3, 0]);
    expect(spans[1].attributes['error.type']).toBe('MaxStepsExceeded');
    expect(spans[1].status).toEqual({ code: 2, message: 'too many' });
  });

  it('makes a chat span of a failed attempt with its error type, under its run, in the trace its client gave', () => {
    const { tracing, spans } = capture();
    const traceId = 'ab'.repeat(16);
    tracingObserver(tracing).modelCall!({
      runId: 'run-x',
      rootRunId: 'run-x',
      traceId,
      attempt: 2,
      stepId: 'run-x:1',
      provider: 'openai',
      model: 'gpt-4o',
      startedAt: 1000,
      durationMs: 250,
      errorType: 'ModelRateLimited',
      retryable: true,
      messages: [{ role: 'user', content: 'a secret' }],
    });
    expect(spans[0].name).toBe('chat gpt-4o');
    expect(spans[0].spanContext().traceId).toBe(traceId);
    expect(spans[0].parentSpanContext?.spanId).toBe(spanIdOf('run-x'));
    expect(spans[0].attributes).toMatchObject({ 'error.type': 'ModelRateLimited', 'agio.attempt': 2 });
    expect(JSON.stringify(spans[0].attributes)).not.toContain('a secret');
  });

  it('turns traces on only when OTEL_* names an exporter or an OTLP endpoint', () => {
    expect(tracesExporterOf({})).toBeUndefined();
    expect(tracesExporterOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe('otlp');
    expect(tracesExporterOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe('otlp');
    expect(tracesExporterOf({ OTEL_TRACES_EXPORTER: 'console' })).toBe('console');
    expect(
      tracesExporterOf({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
    expect(
      tracesExporterOf({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
  });
});
