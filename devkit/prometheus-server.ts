// A real Prometheus on demand (Debian's `prometheus` package, which scripts/ensure-prometheus installs): on loopback,
// in a temporary directory, scraping the targets it is given every second; the metrics tests query its HTTP API.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { startLoopbackServer } from './loopback-server';

/** One /metrics endpoint to scrape: a job name, its URL, and the bearer token it takes (if any). */
export interface ScrapeTarget {
  job: string;
  url: string;
  bearerToken?: string;
}

/** A running Prometheus. */
export interface PrometheusServer {
  url: string;
  pid: number;
  /** An instant query's result vector (`/api/v1/query`). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/** The directory of `prometheus` and `promtool`: AGIO_PROMETHEUS_BIN, else the PATH's (Debian: /usr/bin). */
export function prometheusBin(tool: 'prometheus' | 'promtool'): string {
  const dir = process.env.AGIO_PROMETHEUS_BIN;
  if (dir) return path.join(dir, tool);
  for (const entry of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(entry, tool);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(
    `${tool} is not installed: run scripts/ensure-prometheus (Debian: apt-get install prometheus) or set AGIO_PROMETHEUS_BIN`,
  );
}

/** Runs promtool with `args`; resolves with its output, rejects with it when promtool fails. */
export async function promtool(...args: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(prometheusBin('promtool'), args, { encoding: 'utf8' });
  return stdout + stderr;
}

/** The scrape configuration of `targets` (every second), with `ruleFiles` evaluated every second. */
export function prometheusConfig(targets: ScrapeTarget[], ruleFiles: string[] = []): string {
  return stringify({
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: targets.map((t) => {
      const url = new URL(t.url);
      return {
        job_name: t.job,
        metrics_path: url.pathname,
        scheme: url.protocol.replace(':', ''),
        ...(t.bearerToken ? { authorization: { type: 'Bearer', credentials: t.bearerToken } } : {}),
        static_configs: [{ targets: [url.host] }],
      };
    }),
  });
}

/** Starts Prometheus scraping `targets`; resolves once it answers HTTP. */
export async function startPrometheus(targets: ScrapeTarget[], ruleFiles: string[] = []): Promise<PrometheusServer> {
  const binary = prometheusBin('prometheus');
  const config = prometheusConfig(targets, ruleFiles);
  // Checked first: Prometheus refusing its config would otherwise show only as a server that never listens.
  const checkDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-prometheus-check-'));
  try {
    await fs.promises.writeFile(path.join(checkDir, 'prometheus.yml'), config);
    await promtool('check', 'config', path.join(checkDir, 'prometheus.yml')).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`Prometheus's configuration is invalid:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
  } finally {
    await fs.promises.rm(checkDir, { recursive: true, force: true });
  }
  const server = await startLoopbackServer({
    name: 'Prometheus',
    binary,
    args: (dir, port) => {
      fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
      return [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ];
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    pid: server.pid,
    stop: server.stop,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as { status: string; error?: string; data?: { result: never[] } };
      if (body.status !== 'success') throw new Error(`Prometheus query ${promql}: ${body.error ?? response.status}`);
      return body.data!.result;
    },
  };
}
