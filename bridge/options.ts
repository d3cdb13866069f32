// What createBridge takes.
import type { AgioClient } from '../client/agio-client';
import type { LiveLane } from '../live/lane';
import type { Stores } from '../stores';

/** What the bridge needs. */
export interface BridgeOptions {
  agio: AgioClient;
  /** token → tenant. */
  tokens: Map<string, string>;
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
   * Origins whose pages may call the bridge from a browser (CORS); none by default. `*` allows any origin (bearer
   * tokens are not cookies, so no credentials are involved).
   */
  corsOrigins?: string[];
  /** Secret of stream tokens (POST /runs/:id/stream-token); bridges behind one load balancer share it. Default: random per process. */
  streamTokenSecret?: string;
  /** How long a stream token may open a stream (default 5 minutes; a stream it opened lasts as long as the run). */
  streamTokenTtlMs?: number;
  /** The built run viewer served at /ui/ (default: the package's dist/ui); false serves none. */
  viewerDir?: string | false;
  /** Where the agents came from (an agents file's path), shown by GET /agents. */
  agentsSource?: string;
  logger?: boolean;
}
