// What createBridge takes.
import type { AgioClient } from '../client/agio-client';
import type { LiveLane } from '../live/lane';
import type { TokenTable } from './auth';
import type { Stores } from '../stores';
import type { LogDestination } from './log-redaction';

/** What the bridge needs. */
export interface BridgeOptions {
  agio: AgioClient;
  /** token → its grant (tenant, identity, scopes: parseTokens), or a plain tenant (default identity and scopes). */
  tokens: TokenTable;
  /** SSE comment heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** Sessions, traces and citations (the worker's stores: shared memory in one process, or MongoDB). */
  stores?: Stores;
  /** The live lane the worker's model deltas go to (`agio serve`: in process): merged into every SSE stream. */
  liveLane?: LiveLane;
  /** How long pause/resume wait for the run to park before answering 202 (default 10 s). */
  controlWaitMs?: number;
  /**
   * Accept `allow` rules in POST /runs' `permissions` (default false: only `deny` and `ask`). Per-run rules are checked
   * before the agent's own, so an `allow` skips approvals the agent's author required: enable only for trusted callers.
   */
  allowPermissionOverrides?: boolean;
  /**
   * Accept run `limits` above the agent's own from any `start` token (default false: only an `admin` token may raise
   * them; others get 400 limit_above_agent).
   */
  allowLimitRaise?: boolean;
  /** Running root runs a tenant may have before POST /runs answers 429 (default 500; 0: no cap). */
  maxRunningRunsPerTenant?: number;
  /**
   * Open event streams a tenant may have on this bridge before GET /runs/:id/events answers 429 (default 500; 0: no
   * cap).
   */
  maxStreamsPerTenant?: number;
  /**
   * Origins whose pages may call the bridge from a browser (CORS); none by default. `*` allows any origin (bearer
   * tokens are not cookies, so no credentials are involved).
   */
  corsOrigins?: string[];
  /**
   * Host names the bridge answers to (bridge/host-check.ts; `*` any, `<ip>` any literal IP, `.example.com` its
   * subdomains); default: the loopback names only. Another Host gets 403.
   */
  allowedHosts?: string[];
  /**
   * Secret of stream tokens (POST /runs/:id/stream-token); bridges behind one load balancer share it. Default: random
   * per process.
   */
  streamTokenSecret?: string;
  /**
   * Secret callback URLs are checked with (POST /callbacks/:token), shared with the workers that sign them
   * (AGIO_CALLBACK_SECRET); unset: the bridge takes no callbacks (401).
   */
  callbackSecret?: string;
  /** The largest callback body the bridge reads (default 256 KiB; more answers 413). */
  callbackBodyLimit?: number;
  /** How long a stream token may open a stream (default 5 minutes; a stream it opened lasts as long as the run). */
  streamTokenTtlMs?: number;
  /** The built run viewer served at /ui/ (default: the package's dist/ui); false serves none. */
  viewerDir?: string | false;
  /** Where the agents came from (an agents file's path), shown by GET /agents. */
  agentsSource?: string;
  /**
   * GET /metrics: `public` serves it without a token (AGIO_METRICS_PUBLIC=1; otherwise it takes an `admin` token), and
   * `extra` adds more Prometheus text after the bridge's own (`agio serve`: its worker's metrics); `processMetrics`
   * adds the process's CPU, memory and event loop (the bridge's main: a process of its own).
   */
  metrics?: { public?: boolean; extra?: () => Promise<string>; processMetrics?: boolean };
  /** Let webhooks point at loopback and private addresses (default: AGIO_WEBHOOK_ALLOW_PRIVATE=1; else refused). */
  webhookAllowPrivate?: boolean;
  /** Request logs (tokens redacted, bridge/log-redaction.ts): true for stdout, or a stream to write them to. */
  logger?: boolean | LogDestination;
}
