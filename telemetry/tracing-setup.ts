// OpenTelemetry traces, configured by the standard OTEL_* environment variables and off when none asks for them: one
// OTLP exporter (http/protobuf) behind a batch processor, registered as the process's global tracer provider.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  TracerProvider,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

/** This process's traces: where finished spans go, and what they say about the process. */
export interface Tracing {
  processor: SpanProcessor;
  resource: Resource;
  /** Prompts and completions go into chat spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  captureContent: boolean;
  /** Exports what is still buffered. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The name spans are recorded under (the instrumentation scope). */
export const TRACER_NAME = 'agio';

/**
 * Whether the environment asks for traces: OTEL_TRACES_EXPORTER `otlp` or `console`, or (unset) an OTLP endpoint in
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. OTEL_SDK_DISABLED=true turns them off.
 */
export function tracesExporterOf(env: NodeJS.ProcessEnv = process.env): 'otlp' | 'console' | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = env.OTEL_TRACES_EXPORTER?.split(',').map((s) => s.trim().toLowerCase());
  if (named?.includes('none')) return undefined;
  if (named?.includes('otlp')) return 'otlp';
  if (named?.includes('console')) return 'console';
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : undefined;
}

/** Where OTLP goes: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT's `/v1/traces`. */
function otlpUrl(env: NodeJS.ProcessEnv): { url: string } | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return { url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return { url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` };
  return undefined;
}

/** OTEL_BSP_* as the batch processor's options (this SDK release no longer reads them itself). */
function batchOptions(env: NodeJS.ProcessEnv): Record<string, number> {
  const options: Record<string, number> = {};
  const names = {
    OTEL_BSP_SCHEDULE_DELAY: 'scheduledDelayMillis',
    OTEL_BSP_EXPORT_TIMEOUT: 'exportTimeoutMillis',
    OTEL_BSP_MAX_QUEUE_SIZE: 'maxQueueSize',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'maxExportBatchSize',
  };
  for (const [name, option] of Object.entries(names)) {
    const value = Number(env[name]);
    if (env[name] && Number.isFinite(value) && value >= 0) options[option] = value;
  }
  return options;
}

let installed: Tracing | undefined;

/** Whether this process exports traces (tracingFromEnv found them asked for). */
export function isTracing(): boolean {
  return installed !== undefined;
}

/**
 * Starts this process's traces when the environment asks for them (see {@link tracesExporterOf}); undefined, and
 * nothing installed, otherwise. The service is OTEL_SERVICE_NAME (else `defaultService`); OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_BSP_* and OTEL_EXPORTER_OTLP_* apply as the SDK reads them. Once per process: a second call returns the first.
 */
export function tracingFromEnv(defaultService: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (installed) return installed;
  const kind = tracesExporterOf(env);
  if (!kind) return undefined;
  const exporter: SpanExporter = kind === 'otlp' ? new OTLPTraceExporter(otlpUrl(env)) : new ConsoleSpanExporter();
  const processor = new BatchSpanProcessor({ exporter, ...batchOptions(env) });
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || defaultService }));
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  installed = {
    processor,
    resource,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return installed;
}
