// The worker's metrics in one registry: model and tool calls (telemetry/metrics-calls.ts), what its runs' events say
// (metrics-run-events.ts), runs by agent and status from visibility (metrics-runs.ts), the process's own (CPU, memory,
// event loop), and after them the Temporal SDK's worker metrics (metrics-temporal.ts); served at GET /metrics by a
// small HTTP listener of the worker's own (AGIO_METRICS_PORT) or by `agio serve`'s bridge.
import http from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { RunObserver } from '../activities/observer';
import { callMetrics } from './metrics-calls';
import { runEventMetrics } from './metrics-run-events';
import { runCountMetrics, type RunCountSource } from './metrics-runs';
import { waitingMetrics } from './metrics-waiting';
import { temporalMetrics } from './metrics-temporal';

/** A worker's metrics: the observer to give createWorker, and the text of GET /metrics. */
export interface WorkerMetrics {
  registry: Registry;
  /** Give it to createWorker's `observers`. */
  observer: RunObserver;
  /**
   * Adds what visibility counts at scrape time: `agio_runs{agent,status}`, and the runs paused and waiting for a person
   * (metrics-waiting.ts).
   */
  useVisibility(source: RunCountSource): void;
  /** Everything in Prometheus's text format: this registry's metrics, then the Temporal SDK's. */
  text(): Promise<string>;
}

/**
 * Creates a worker's metrics (`processMetrics: false` leaves out the process's own, e.g. when another registry has
 * them).
 */
export function workerMetrics(opts: { processMetrics?: boolean } = {}): WorkerMetrics {
  const registry = new Registry();
  if (opts.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const calls = callMetrics(registry);
  const events = runEventMetrics(registry);
  const observer: RunObserver = { ...calls, ...events };
  return {
    registry,
    observer,
    useVisibility(source) {
      runCountMetrics(registry, source);
      waitingMetrics(registry, source);
    },
    text: async () => (await registry.metrics()) + (await temporalMetrics()),
  };
}

/** Prometheus's text format content type. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A listening metrics endpoint. */
export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `text()` at GET /metrics on `host:port` (0: a free port). Unauthenticated: bind it to loopback or a network
 * only Prometheus reaches (the default host is 127.0.0.1).
 */
export function startMetricsServer(
  text: () => Promise<string>,
  port: number,
  host = '127.0.0.1',
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    text().then(
      (body) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(body),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err.message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address() as { port: number };
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${bound}/metrics`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** AGIO_METRICS_PORT (a port, 0 for a free one) and AGIO_METRICS_HOST (default 127.0.0.1); undefined when unset. */
export function metricsListenFromEnv(env: NodeJS.ProcessEnv = process.env): { port: number; host: string } | undefined {
  const raw = env.AGIO_METRICS_PORT?.trim();
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`AGIO_METRICS_PORT: not a port number: "${raw}"`);
  return { port, host: env.AGIO_METRICS_HOST?.trim() || '127.0.0.1' };
}
