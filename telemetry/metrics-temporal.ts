// The Temporal SDK's own worker metrics (task slots, poll latencies, sticky cache, activity and workflow task
// timings): the SDK core exports them from a Prometheus endpoint of its own, which the process opens on a free
// loopback port; Agio's /metrics fetches that page and serves it after its own. The runtime is installed once per
// process, so this is asked for before anything creates a worker or connection.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import net from 'node:net';

/** Where the Temporal SDK's metrics page is (undefined: the runtime was installed without them). */
let temporalMetricsUrl: string | undefined;

const freeLoopbackPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * Installs the process's Temporal runtime with a logger at `logLevel` and the SDK's metrics exported on a free
 * loopback port (returns false when a runtime was installed already, e.g. by a test: then its metrics are absent).
 */
export async function installRuntimeWithMetrics(logLevel: LogLevel = 'WARN'): Promise<boolean> {
  const bindAddress = `127.0.0.1:${await freeLoopbackPort()}`;
  try {
    Runtime.install({
      logger: new DefaultLogger(logLevel),
      telemetryOptions: {
        metrics: {
          metricPrefix: 'temporal_',
          prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
        },
      },
    });
  } catch {
    return false;
  }
  temporalMetricsUrl = `http://${bindAddress}/metrics`;
  return true;
}

/** The Temporal SDK's metrics page as text ('' when none is exported or it does not answer within 2 s). */
export async function temporalMetrics(): Promise<string> {
  if (!temporalMetricsUrl) return '';
  try {
    const response = await fetch(temporalMetricsUrl, { signal: AbortSignal.timeout(2000) });
    return response.ok ? await response.text() : '';
  } catch {
    return '';
  }
}
