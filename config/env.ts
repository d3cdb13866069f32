// The environment variables every Agio process reads (worker, bridge, CLI, `agio serve`), validated with zod so a
// typo fails at start.
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from '../common';

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

/** Environment variables Agio reads. */
export const AgioEnv = z.object({
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.preprocess(emptyToUndefined, z.string().default('default')),
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_TLS: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('false')),
  AGIO_TASK_QUEUE: z.preprocess(emptyToUndefined, z.string().default(DEFAULT_TASK_QUEUE)),
  AGIO_DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('.agio')),
  /** The agents (and MCP servers) the worker and bridge serve: a YAML or JSON file; unset: agents/examples.yaml. */
  AGIO_AGENTS: optionalString,
  /** Origins whose pages may call the bridge from a browser (CORS), comma-separated, or `*`; unset: none. */
  AGIO_CORS_ORIGINS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .optional(),
  ),
  /** Secret of the bridge's stream tokens; bridges behind one load balancer share it (unset: random per process). */
  AGIO_STREAM_TOKEN_SECRET: optionalString,
  /**
   * Secret callback tools' URLs are signed with (workers) and checked with (bridges): every worker and bridge of a
   * fleet shares it (at least 16 bytes). Unset: workers offer no callback tools, bridges refuse callbacks (`agio serve`
   * keeps one in AGIO_DATA_DIR/callback-secret).
   */
  AGIO_CALLBACK_SECRET: optionalString,
  /**
   * The bridges' public base URL that callback URLs point at (`https://agio.example.com`); workers need it with the
   * secret.
   */
  AGIO_CALLBACK_BASE_URL: optionalString,
  /**
   * Whether POST /runs may send `allow` rules, which skip approvals the agent's author asked for (default: only deny
   * and ask).
   */
  AGIO_ALLOW_PERMISSION_OVERRIDES: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('false')),
  /**
   * Whether POST /runs may raise a run's limits above its agent's own from any start token (default: only admin
   * tokens).
   */
  AGIO_ALLOW_LIMIT_RAISE: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('false')),
  /** Running root runs one tenant may have before POST /runs answers 429 (default 500; 0: no cap). */
  AGIO_MAX_RUNNING_RUNS_PER_TENANT: z.preprocess(emptyToUndefined, z.coerce.number().int().nonnegative().optional()),
  /** Open event streams one tenant may have on one bridge before another answers 429 (default 500; 0: no cap). */
  AGIO_MAX_STREAMS_PER_TENANT: z.preprocess(emptyToUndefined, z.coerce.number().int().nonnegative().optional()),
  /**
   * Keys of the payload codec that encrypts what runs put in Temporal history (AES-256-GCM): `id:base64key,…`, each key
   * 32 bytes. Unset: no codec, payloads are plain JSON. Every worker, bridge and CLI of a namespace needs the same
   * keys.
   */
  AGIO_CODEC_KEYS: optionalString,
  /** The codec key that encrypts new payloads (default: the first of AGIO_CODEC_KEYS); the others only decrypt. */
  AGIO_CODEC_KEY_ID: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  AGIO_MODEL: z.preprocess(emptyToUndefined, z.string().default('gpt-4o-mini')),
  /** Whether the provider takes `response_format: json_schema` for agents with an output schema (default true). */
  AGIO_RESPONSE_FORMAT: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('true')),
  /** The provider's name in traces and metrics (gen_ai.provider.name); unset: `openai`, or OPENAI_BASE_URL's host. */
  AGIO_MODEL_PROVIDER: optionalString,
  /** A JSON or YAML file of model prices (USD per million tokens) that extends and overrides the defaults. */
  AGIO_PRICES_FILE: optionalString,
  /** Model prices as JSON, e.g. `{"my-model":{"input":1,"output":2}}`: over the defaults and AGIO_PRICES_FILE. */
  AGIO_PRICES: optionalString,
  /**
   * US dollars every tenant may spend per UTC day on priced model calls (the worker checks it before each call; a run
   * past it pauses with reason budget). A tenant's own, set by an admin (POST /tenants/:tenant/budget), wins. Unset:
   * none.
   */
  AGIO_TENANT_DAILY_BUDGET_USD: z.preprocess(emptyToUndefined, z.coerce.number().positive().finite().optional()),
  /** A worker's GET /metrics listener (telemetry/metrics-worker.ts): a port (0: a free one); unset: none. */
  AGIO_METRICS_PORT: optionalString,
  /** The address that listener binds (default 127.0.0.1: it has no authentication). */
  AGIO_METRICS_HOST: optionalString,
  /** `1`: a bridge serves GET /metrics without a token (otherwise it takes an `admin` token). */
  AGIO_METRICS_PUBLIC: optionalString,
  MONGODB_URI: optionalString,
  /**
   * NATS (JetStream) for the live lane between separate workers and bridges, e.g. nats://nats:4222; unset: deltas go by
   * signal.
   */
  AGIO_NATS_URL: optionalString,
  /**
   * Worker Deployment Versioning: the deployment (default: the task queue) and this release's build id (default: from
   * the workflow code).
   */
  AGIO_DEPLOYMENT_NAME: optionalString,
  AGIO_BUILD_ID: optionalString,
  /**
   * A workflow bundle file the worker loads instead of bundling workflows/ with webpack at start (the package's
   * `dist/workflow-bundle.js`, or a file holding the code `bundleWorkflows()` of `agio/worker` returns): workers
   * started from the sources then share one bundle and one build id, and each skips seconds of CPU. Unset: the
   * package's prebuilt bundle when installed, else workflows/ bundled at start.
   */
  AGIO_WORKFLOW_BUNDLE: optionalString,
  /**
   * Whether a starting worker makes its own version current: `first` (default) only when the deployment has none yet,
   * `false` never, `true` unless its build is older than the current one, `force` always. Otherwise an operator
   * promotes a version with `agio versions promote <buildId>` (worker/versioning.ts).
   */
  AGIO_MAKE_CURRENT: z.preprocess(emptyToUndefined, z.enum(['first', 'true', 'false', 'force']).default('first')),
  /**
   * Where runs' workspaces live between tools: `store` (the worker's default) keeps them in the stores so any worker
   * can run a run's next tool; `off` (agio serve's default) leaves them in AGIO_DATA_DIR/workspaces, for one worker or
   * workers that all mount one shared volume there.
   */
  AGIO_WORKSPACE_SYNC: z.preprocess(emptyToUndefined, z.enum(['store', 'off']).optional()),
  /** The most bytes a run's workspace may hold in the store (default 268435456, 256 MiB). */
  AGIO_WORKSPACE_MAX_BYTES: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  /** The most files a run's workspace may hold in the store (default 10000). */
  AGIO_WORKSPACE_MAX_FILES: z.preprocess(emptyToUndefined, z.coerce.number().int().positive().optional()),
  /** `agio serve` starts the Temporal Web UI beside its server (built with Go on first use) unless this is false. */
  AGIO_WEB_UI: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('true')),
  /** How long a stopping worker lets in-flight model calls and tools finish (`30s`, `2m`, `500ms`). */
  AGIO_SHUTDOWN_GRACE_TIME: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+(ms|s|m|h)$/, 'a duration such as 30s, 2m or 500ms')
      .default('30s')
      .transform((v) => v as Duration),
  ),
});
/** Environment variables Agio reads. */
export type AgioEnv = z.infer<typeof AgioEnv>;

/** Parses the environment; throws one message listing every bad variable. */
export function loadEnv(env: NodeJS.ProcessEnv = process.env): AgioEnv {
  const parsed = AgioEnv.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      `invalid environment: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
