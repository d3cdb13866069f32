// Per-tenant quotas at the door: running root runs (counted by Temporal visibility, cached briefly) and open event
// streams on this bridge (counted here). Past a quota the bridge answers 429 with Retry-After. Each open stream may
// hold an upstream reader (a Query poller for a client resuming from an old offset), so the stream cap bounds those
// too.
import { HttpError } from './errors';

/** Default most running root runs per tenant (AGIO_MAX_RUNNING_RUNS_PER_TENANT). */
export const DEFAULT_MAX_RUNNING_RUNS_PER_TENANT = 500;
/** Default most open event streams per tenant on one bridge (AGIO_MAX_STREAMS_PER_TENANT). */
export const DEFAULT_MAX_STREAMS_PER_TENANT = 500;
/** How long a tenant's count of running runs is trusted before visibility is asked again. */
const COUNT_TTL_MS = 2_000;

/** 429 with Retry-After (seconds) and the quota's name and value. */
export function quotaExceeded(quota: string, max: number, retryAfterS: number, message: string): HttpError {
  return new HttpError(429, 'quota_exceeded', message, { quota, max }, { 'retry-after': String(retryAfterS) });
}

interface Count {
  /** What visibility said, plus the starts admitted since. */
  value: number;
  at: number;
  pending?: Promise<number>;
}

/**
 * Admits a start while a tenant has fewer running root runs than `max` (0: no cap). The count comes from visibility,
 * at most {@link COUNT_TTL_MS} old; starts admitted since are added to it, so a burst of starts cannot all pass on one
 * stale count.
 */
export class RunningRunsQuota {
  private readonly counts = new Map<string, Count>();

  constructor(
    private readonly countRunning: (tenant: string) => Promise<number>,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reserves a start for `tenant` (429 when at its quota); the returned function gives it back if the start failed. */
  async admit(tenant: string): Promise<() => void> {
    if (this.max <= 0) return () => undefined;
    const count = await this.fresh(tenant);
    if (count.value >= this.max)
      throw quotaExceeded(
        'maxRunningRunsPerTenant',
        this.max,
        5,
        `this tenant has ${count.value} running runs, its quota is ${this.max}: retry when some have finished`,
      );
    count.value++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      if (this.counts.get(tenant) === count) count.value--;
    };
  }

  private async fresh(tenant: string): Promise<Count> {
    const known = this.counts.get(tenant);
    if (known && this.now() - known.at < COUNT_TTL_MS) return known;
    if (known?.pending) {
      await known.pending;
      return this.counts.get(tenant)!;
    }
    // Concurrent requests share one count query; until it answers they wait on it.
    const pending = this.countRunning(tenant);
    const waiting: Count = { value: known?.value ?? 0, at: known?.at ?? 0, pending };
    this.counts.set(tenant, waiting);
    try {
      const value = await pending;
      const count: Count = { value, at: this.now() };
      this.counts.set(tenant, count);
      return count;
    } catch (err) {
      this.counts.delete(tenant);
      throw err;
    }
  }
}

/** Counts each tenant's open event streams on this bridge and refuses one past `max` (0: no cap). */
export class TenantStreams {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /**
   * Opens a stream for `tenant` (429 when at its quota); the returned function closes it (once, however often called).
   */
  acquire(tenant: string): () => void {
    const n = this.open.get(tenant) ?? 0;
    if (this.max > 0 && n >= this.max)
      throw quotaExceeded(
        'maxStreamsPerTenant',
        this.max,
        5,
        `this tenant has ${n} open event streams on this bridge, its quota is ${this.max}: close one, or retry later`,
      );
    this.open.set(tenant, n + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const left = (this.open.get(tenant) ?? 1) - 1;
      if (left > 0) this.open.set(tenant, left);
      else this.open.delete(tenant);
    };
  }

  /** Open streams of a tenant. */
  count(tenant: string): number {
    return this.open.get(tenant) ?? 0;
  }
}
