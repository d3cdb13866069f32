// How a worker delivers webhooks: its options over the environment over the defaults.
import type { WebhookDeliverySettings } from '../../common/webhooks';

/** A worker's webhook options (CreateWorkerOptions.webhooks); each unset one comes from the environment. */
export interface WebhookOptions extends Partial<Omit<WebhookDeliverySettings, 'taskQueue'>> {
  /** The task queue receivers are called from (default `<worker's task queue>-webhooks`; AGIO_WEBHOOK_TASK_QUEUE). */
  taskQueue?: string;
  /** Calls to receivers at once per worker (default 50; AGIO_WEBHOOK_CONCURRENCY). */
  concurrency?: number;
  /** Let webhooks reach loopback and private addresses (default false; AGIO_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate?: boolean;
}

/** The worker's resolved webhook settings. */
export type WebhookWorkerSettings = WebhookDeliverySettings & { concurrency: number; allowPrivate: boolean };

const HOUR = 3_600_000;
/** Defaults: three days of retries, the first after 5 s, then doubling up to an hour; 10 s per attempt. */
export const WEBHOOK_DEFAULTS = {
  retryWindowMs: 72 * HOUR,
  initialIntervalMs: 5_000,
  maxIntervalMs: HOUR,
  attemptTimeoutMs: 10_000,
  concurrency: 50,
};

/** Milliseconds from an env value: a number of ms, or a number with a unit (`500ms`, `30s`, `15m`, `24h`, `3d`). */
export function parseDurationMs(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!m) throw new Error(`${name}: a duration such as 500ms, 30s, 15m, 24h or 3d (got "${value}")`);
  const unit: number = { ms: 1, s: 1000, m: 60_000, h: HOUR, d: 24 * HOUR }[m[2] ?? 'ms'] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

/** A worker's webhook settings: `opts`, else AGIO_WEBHOOK_* from `env`, else the defaults. */
export function webhookSettings(
  workerTaskQueue: string,
  opts: WebhookOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): WebhookWorkerSettings {
  const ms = (key: keyof typeof WEBHOOK_DEFAULTS, name: string) =>
    opts[key] ?? parseDurationMs(name, env[name]) ?? WEBHOOK_DEFAULTS[key];
  const concurrency = opts.concurrency ?? Number(env.AGIO_WEBHOOK_CONCURRENCY || WEBHOOK_DEFAULTS.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error('AGIO_WEBHOOK_CONCURRENCY: a positive whole number');
  return {
    taskQueue: opts.taskQueue ?? (env.AGIO_WEBHOOK_TASK_QUEUE || `${workerTaskQueue}-webhooks`),
    retryWindowMs: ms('retryWindowMs', 'AGIO_WEBHOOK_RETRY_WINDOW'),
    initialIntervalMs: ms('initialIntervalMs', 'AGIO_WEBHOOK_RETRY_INITIAL'),
    maxIntervalMs: ms('maxIntervalMs', 'AGIO_WEBHOOK_RETRY_MAX_INTERVAL'),
    attemptTimeoutMs: ms('attemptTimeoutMs', 'AGIO_WEBHOOK_TIMEOUT'),
    concurrency,
    allowPrivate: opts.allowPrivate ?? env.AGIO_WEBHOOK_ALLOW_PRIVATE === '1',
  };
}
