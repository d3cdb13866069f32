// The HTTP bridge for integration tests: a real Fastify bridge over an AgioClient, listening on a free loopback
// port, plus a small JSON request helper for its routes.
import type { Client } from '@temporalio/client';
import { parseTokens } from '../../bridge/auth';
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
  /** The built viewer's folder (default: dist/ui), or false for none. */
  viewerDir?: string | false;
}

/** A listening bridge. */
export interface TestBridge {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  app: ReturnType<typeof createBridge>;
  /** The AgioClient the bridge serves (same task queue and agents). */
  agio: AgioClient;
  close(): Promise<void>;
}

/** Starts a bridge on 127.0.0.1 and a free port. */
export async function startBridge(opts: TestBridgeOptions): Promise<TestBridge> {
  const agio = new AgioClient(opts.client, { taskQueue: opts.taskQueue, agents: opts.agents ?? [] });
  const app = createBridge({
    agio,
    tokens: parseTokens(opts.tokens ?? 'test-token:default'),
    heartbeatMs: opts.heartbeatMs,
    ...(opts.stores ? { stores: opts.stores } : {}),
    ...(opts.liveLane ? { liveLane: opts.liveLane } : {}),
    corsOrigins: opts.corsOrigins,
    streamTokenSecret: opts.streamTokenSecret,
    streamTokenTtlMs: opts.streamTokenTtlMs,
    viewerDir: opts.viewerDir,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, app, agio, close: () => app.close() };
}

/** A JSON answer of the bridge. */
export interface JsonResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON; tests index into them freely
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
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: tests see the raw text
  }
  return { status: res.status, body };
}

/** The bridge's stream counters (GET /healthz). */
export async function streamStats(bridge: TestBridge): Promise<HubStats> {
  const { status, body } = await request(`${bridge.url}/healthz`);
  if (status !== 200) throw new Error(`GET /healthz answered ${status}: ${JSON.stringify(body)}`);
  return body.streams as HubStats;
}
