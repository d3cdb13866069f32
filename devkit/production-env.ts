// The environment of each Agio process in the production shape: what devkit/production-stack.ts gives its workers and
// bridges, and (tests/unit/docker-compose.test.ts checks) what docker-compose.yml sets for its own.

/** Where the shared services are, and the agents file. */
export interface ShapeEndpoints {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  mongoUri: string;
  natsUrl: string;
  agentsFile?: string;
  /** AGIO_CODEC_KEYS of every worker and bridge (the payload codec); unset: none. */
  codecKeys?: string;
}

/** Variables every worker and bridge gets. */
function sharedEnvironment(e: ShapeEndpoints): Record<string, string> {
  return {
    NODE_ENV: 'production',
    TEMPORAL_ADDRESS: e.temporalAddress,
    TEMPORAL_NAMESPACE: e.namespace,
    AGIO_TASK_QUEUE: e.taskQueue,
    MONGODB_URI: e.mongoUri,
    AGIO_NATS_URL: e.natsUrl,
    ...(e.agentsFile ? { AGIO_AGENTS: e.agentsFile } : {}),
    ...(e.codecKeys ? { AGIO_CODEC_KEYS: e.codecKeys } : {}),
  };
}

/** A worker's environment: its own data directory (workspace copies), the model, a short shutdown grace. */
export function workerEnvironment(
  e: ShapeEndpoints,
  w: { dataDir: string; model: { baseURL: string; apiKey?: string; model?: string } },
): Record<string, string> {
  return {
    ...sharedEnvironment(e),
    AGIO_DATA_DIR: w.dataDir,
    OPENAI_BASE_URL: w.model.baseURL,
    OPENAI_API_KEY: w.model.apiKey ?? 'not-needed',
    AGIO_MODEL: w.model.model ?? 'scripted-model',
    AGIO_SHUTDOWN_GRACE_TIME: '5s',
  };
}

/** A bridge's environment: where it listens, its tokens, and the stream-token secret all bridges share. */
export function bridgeEnvironment(
  e: ShapeEndpoints,
  b: { port: number; tokens: string; streamTokenSecret: string },
): Record<string, string> {
  return {
    ...sharedEnvironment(e),
    AGIO_TOKENS: b.tokens,
    AGIO_STREAM_TOKEN_SECRET: b.streamTokenSecret,
    HOST: '127.0.0.1',
    PORT: String(b.port),
  };
}

/**
 * The OpenTelemetry variables (OTEL_*) of `from`, which the stack hands to each worker and bridge so that they export
 * traces where its caller's environment says (none set: no tracing).
 */
export function telemetryEnvironment(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(from).filter((e): e is [string, string] => e[0].startsWith('OTEL_') && e[1] !== undefined),
  );
}
