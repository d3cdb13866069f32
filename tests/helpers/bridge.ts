// The HTTP bridge for integration tests: a real Fastify bridge over an AgioClient, listening on a free loopback
// port, plus a small JSON request helper for its routes.
import type { Client } from '@temporalio/client';
import http from 'node:http';
import { parseTokens } from '../../bridge/auth';
import type { LogDestination } from '../../bridge/log-redaction';
import { createBridge } from '../../bridge/server';
import type { LiveLane } from '../../live/lane';
import type { HubStats } from '../../bridge/stream-hub';
import { AgioClient } from '../../client/agio-client';
import type { AnyAgentSpec } from '../../common';
import type { Stores } from '../../stores';

/** Options of {@link startBridge}. */
export interface TestBridgeOptions {
  client: Client;
  taskQueue: string;
  agents?: AnyAgentSpec[];
  /** `token:tenant,…` as in AGIO_TOKENS (default `test-token:default`). */
  tokens?: string;
  heartbeatMs?: number;
  /** Stores behind /sessions, /runs/:id/trace and /runs/:id/citations (usually the worker's). */
  stores?: Stores;
  /** The live lane the worker's deltas go to (as in `agio serve`). */
  liveLane?: LiveLane;
  /** Browser access: CORS origins and the stream tokens' secret. */
  corsOrigins?: string[];
  streamTokenSecret?: string;
  streamTokenTtlMs?: number;
  /** The secret callback URLs are checked with (the workers' callback secret), and the largest callback body. */
  callbackSecret?: string;
  callbackBodyLimit?: number;
  /** The built viewer's folder (default: dist/ui), or false for none. */
  viewerDir?: string | false;
  /** Door policy: limits above the agent's, and per-tenant quotas (bridge defaults when unset). */
  allowLimitRaise?: boolean;
  maxRunningRunsPerTenant?: number;
  maxStreamsPerTenant?: number;
  /** Host names the bridge answers to (default: loopback names). */
  allowedHosts?: string[];
  /** The agents file GET /agents names. */
  agentsSource?: string;
  /** Where the bridge's request logs go (default: none). */
  logger?: LogDestination;
  /** Let webhooks point at loopback (the tests' receivers). */
  webhookAllowPrivate?: boolean;
}

/** A listening bridge. */
export interface TestBridge {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  app: ReturnType<typeof createBridge>;
  /** The AgioClient the bridge serves (same task queue and agents). */
  agio: AgioClient;
  /** The first of its tokens. */
  token: string;
  close(): Promise<void>;
}

/** Starts a bridge on 127.0.0.1 and a free port. */
export async function startBridge(opts: TestBridgeOptions): Promise<TestBridge> {
  const agio = new AgioClient(opts.client, { taskQueue: opts.taskQueue, agents: opts.agents ?? [] });
  const tokens = parseTokens(opts.tokens ?? 'test-token:default');
  const app = createBridge({
    agio,
    tokens,
    heartbeatMs: opts.heartbeatMs,
    ...(opts.stores ? { stores: opts.stores } : {}),
    ...(opts.liveLane ? { liveLane: opts.liveLane } : {}),
    corsOrigins: opts.corsOrigins,
    streamTokenSecret: opts.streamTokenSecret,
    streamTokenTtlMs: opts.streamTokenTtlMs,
    ...(opts.callbackSecret ? { callbackSecret: opts.callbackSecret } : {}),
    ...(opts.callbackBodyLimit ? { callbackBodyLimit: opts.callbackBodyLimit } : {}),
    viewerDir: opts.viewerDir,
    allowLimitRaise: opts.allowLimitRaise,
    maxRunningRunsPerTenant: opts.maxRunningRunsPerTenant,
    maxStreamsPerTenant: opts.maxStreamsPerTenant,
    ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.agentsSource ? { agentsSource: opts.agentsSource } : {}),
    ...(opts.webhookAllowPrivate !== undefined ? { webhookAllowPrivate: opts.webhookAllowPrivate } : {}),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, app, agio, token: [...tokens.keys()][0], close: () => app.close() };
}

/** A JSON answer of the bridge. */
export interface JsonResponse {
  status: number;
  // Response bodies are arbitrary JSON; tests index into them freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Sends a request (JSON body when `body` is not a string) and parses the JSON answer. */
export async function request(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const payload =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  // fetch always sends the URL's own Host; a test of the bridge's Host check sends another through node:http.
  const res = headers.host
    ? await sendWithHost(url, method, headers, payload)
    : await fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: tests see the raw text
  }
  return { status: res.status, body };
}

function sendWithHost(
  url: string,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<{ status: number; text(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: async () => text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The bridge's stream counters (GET /healthz with a token: without one it says only whether it is up). */
export async function streamStats(bridge: TestBridge): Promise<HubStats> {
  const { status, body } = await request(`${bridge.url}/healthz`, { token: bridge.token });
  if (status !== 200) throw new Error(`GET /healthz answered ${status}: ${JSON.stringify(body)}`);
  return body.streams as HubStats;
}
