// A real Jaeger (v2, built from its Go module like the other servers) on demand: in-memory storage, an OTLP/HTTP
// receiver and the query API on free loopback ports. The tracing tests export spans to it and read the traces back.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, tcpReachable, waitUntil } from './free-port';
import { findOrInstallBinary, type BinarySpec } from './install-binary';
import { startLoopbackServer } from './loopback-server';

/** Jaeger v2 (its module's cmd/jaeger), built from its Go module when missing. */
export const JAEGER: BinarySpec = {
  name: 'jaeger',
  envVar: 'JAEGER_PATH',
  goModule: 'github.com/jaegertracing/jaeger',
  goPackage: 'github.com/jaegertracing/jaeger/cmd/jaeger',
  version: 'v1.76.0',
};

/** One span as Jaeger's query API answers it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
  logs: { timestamp: number; fields: { key: string; value: unknown }[] }[];
  processID: string;
}

/** One trace as Jaeger's query API answers it. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

/** A running Jaeger. */
export interface JaegerServer {
  /** Where to send OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlpEndpoint: string;
  /** The query API and UI. */
  queryUrl: string;
  pid: number;
  /** The traces with a span of `service` (GET /api/traces). */
  traces(service: string): Promise<JaegerTrace[]>;
  /** One trace by its id (GET /api/traces/:id); undefined while Jaeger has none of its spans. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  stop(): Promise<void>;
}

/** Jaeger's configuration: memory store, OTLP/HTTP in, query out, its own telemetry off. */
export function jaegerConfig(otlpPort: number, queryPort: number, queryGrpcPort: number): string {
  return stringify({
    service: {
      extensions: ['jaeger_storage', 'jaeger_query'],
      pipelines: {
        traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['jaeger_storage_exporter'] },
      },
      telemetry: { metrics: { level: 'none' }, logs: { level: 'warn' } },
    },
    extensions: {
      jaeger_query: {
        storage: { traces: 'memstore' },
        http: { endpoint: `127.0.0.1:${queryPort}` },
        grpc: { endpoint: `127.0.0.1:${queryGrpcPort}` },
      },
      jaeger_storage: { backends: { memstore: { memory: { max_traces: 100_000 } } } },
    },
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${otlpPort}` } } } },
    processors: { batch: { timeout: '100ms' } },
    exporters: { jaeger_storage_exporter: { trace_storage: 'memstore' } },
  });
}

/** Finds (or builds) Jaeger and starts it; resolves once both its query API and its OTLP receiver listen. */
export async function startJaeger(opts: { log?: (msg: string) => void } = {}): Promise<JaegerServer> {
  const binary = await findOrInstallBinary(JAEGER, opts.log);
  if (!binary)
    throw new Error(
      'jaeger is not installed and no Go toolchain was found to build it (set JAEGER_PATH or install Go)',
    );
  const otlpPort = await freePort();
  const queryGrpcPort = await freePort();
  const server = await startLoopbackServer({
    name: 'Jaeger',
    binary,
    args: (dir, port) => {
      const config = path.join(dir, 'jaeger.yaml');
      fs.writeFileSync(config, jaegerConfig(otlpPort, port, queryGrpcPort));
      return ['--config', config];
    },
  });
  await waitUntil(() => tcpReachable(otlpPort), `Jaeger's OTLP receiver on port ${otlpPort}`, 30_000, 100);
  const queryUrl = `http://127.0.0.1:${server.port}`;
  return {
    otlpEndpoint: `http://127.0.0.1:${otlpPort}`,
    queryUrl,
    pid: server.pid,
    async traces(service) {
      const res = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=1000&lookback=1h`);
      if (res.status === 404) return []; // no span of the service yet
      if (!res.ok) throw new Error(`Jaeger answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: JaegerTrace[] | null }).data ?? [];
    },
    async trace(traceId) {
      const res = await fetch(`${queryUrl}/api/traces/${traceId}`);
      if (res.status === 404) return undefined;
      if (!res.ok) throw new Error(`Jaeger answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: JaegerTrace[] | null }).data?.[0];
    },
    stop: server.stop,
  };
}
