// The bridge's server spans: a request that starts a run (POST /runs) is a span of its own, joined to the caller's
// trace (a W3C traceparent header), and the run started inside it hangs under it.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isTracing, TRACER_NAME } from './tracing-setup';

/**
 * Runs `fn` inside a server span `name` (the route, e.g. `POST /runs`) continuing the trace in `headers`; without
 * traces in this process, just runs `fn`.
 */
export async function withServerSpan<T>(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Record<string, string>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!isTracing()) return fn();
  const parent = propagation.extract(context.active(), headers);
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    span.setAttribute('error.type', (err as Error).name || 'Error');
    throw err;
  } finally {
    span.end();
  }
}
