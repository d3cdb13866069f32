// Runs waiting for a person or paused, counted from visibility when Prometheus scrapes: the search attributes each
// run keeps (AgioWaiting, AgioWaitingSince: workflows/lifecycle/waiting-index.ts), so the figures are the fleet's,
// whichever worker saw a wait begin and however many workers restarted since. Kept a few seconds, so many scrapers cost
// one round.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Gauge, type Registry } from 'prom-client';
import { NAMED_PAUSE_REASONS, WaitingSearchAttributes } from '../common/search-attributes';
import { keptFor, quote, type RunCountSource } from './metrics-runs';

/** How long waiting figures are served before visibility is asked again. */
export const WAITING_TTL_MS = 10_000;
/** The most waiting runs read to find the oldest wait of one kind (counts are exact however many there are). */
export const OLDEST_SCAN_LIMIT = 1000;

/** The AgioWaiting values counted: approvals, callbacks, then each pause reason. */
const KINDS = ['approval', 'callback', ...[...NAMED_PAUSE_REASONS, 'operator'].map((reason) => `paused:${reason}`)];

interface Waiting {
  count: number;
  /** Seconds since the oldest of them began to wait (0: none waits). */
  oldestSeconds: number;
}

/** The running runs (of the task queue, when one is named) whose AgioWaiting holds `kind`. */
function queryOf(kind: string, taskQueue: string | undefined): string {
  const where = [`${WaitingSearchAttributes.waiting.name} = ${quote(kind)}`, `ExecutionStatus = 'Running'`];
  if (taskQueue) where.push(`TaskQueue = ${quote(taskQueue)}`);
  return where.join(' AND ');
}

async function waitingOf(source: Omit<RunCountSource, 'agents'>, kind: string, now: number): Promise<Waiting> {
  const { workflowService } = source.connection;
  const query = queryOf(kind, source.taskQueue);
  const counted = await workflowService.countWorkflowExecutions({ namespace: source.namespace, query });
  const count = Number(counted.count ?? 0);
  let oldest = now;
  let nextPageToken: Uint8Array | undefined;
  for (let read = 0; count > 0 && read < OLDEST_SCAN_LIMIT;) {
    const page = await workflowService.listWorkflowExecutions({
      namespace: source.namespace,
      query,
      pageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const e of page.executions ?? []) {
      const since = e.searchAttributes?.indexedFields?.[WaitingSearchAttributes.waitingSince.name] as
        Payload | undefined;
      const at = since && Date.parse(String(defaultPayloadConverter.fromPayload(since)));
      if (at && at < oldest) oldest = at;
      read++;
    }
    if (!page.nextPageToken?.length) break;
    nextPageToken = page.nextPageToken;
  }
  return { count, oldestSeconds: Math.max(0, (now - oldest) / 1000) };
}

/**
 * Registers `agio_runs_paused{reason}`, `agio_run_oldest_pause_seconds{reason}`, `agio_approvals_waiting` (runs with a
 * tool call waiting for a person, nested runs included), `agio_approval_oldest_wait_seconds`, and the same two for
 * callback tools (`agio_callbacks_waiting`, `agio_callback_oldest_wait_seconds`), from visibility.
 */
export function waitingMetrics(registry: Registry, source: Omit<RunCountSource, 'agents'>, now = Date.now): void {
  const figures = keptFor(
    WAITING_TTL_MS,
    async () => {
      const at = now();
      return new Map(await Promise.all(KINDS.map(async (kind) => [kind, await waitingOf(source, kind, at)] as const)));
    },
    now,
    (err) => console.warn(`agio metrics: visibility could not count waiting runs: ${err.message}`),
  );
  const registers = [registry];
  const pauseGauge = (name: string, help: string, pick: (w: Waiting) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['reason'],
      registers,
      async collect() {
        const all = await figures().catch(() => undefined);
        if (!all) return;
        this.reset();
        for (const reason of [...NAMED_PAUSE_REASONS, 'operator'])
          this.set({ reason }, pick(all.get(`paused:${reason}`) ?? { count: 0, oldestSeconds: 0 }));
      },
    });
  pauseGauge(
    'agio_runs_paused',
    'Runs paused now (roots and nested runs), by reason (budget, operator).',
    (w) => w.count,
  );
  pauseGauge(
    'agio_run_oldest_pause_seconds',
    'How long the longest-waiting paused run has waited, by reason (0: none paused).',
    (w) => w.oldestSeconds,
  );
  const kindGauge = (kind: string) => (name: string, help: string, pick: (w: Waiting) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const all = await figures().catch(() => undefined);
        if (all) this.set(pick(all.get(kind) ?? { count: 0, oldestSeconds: 0 }));
      },
    });
  const approvalGauge = kindGauge('approval');
  approvalGauge(
    'agio_approvals_waiting',
    'Runs (roots and nested) with a tool call waiting for a person to approve or deny it now.',
    (w) => w.count,
  );
  approvalGauge(
    'agio_approval_oldest_wait_seconds',
    'How long the run waiting longest for an approval has waited (0: none waits).',
    (w) => w.oldestSeconds,
  );
  const callbackGauge = kindGauge('callback');
  callbackGauge(
    'agio_callbacks_waiting',
    'Runs (roots and nested) with a callback tool call waiting for its outside result now.',
    (w) => w.count,
  );
  callbackGauge(
    'agio_callback_oldest_wait_seconds',
    'How long the run waiting longest on something, a callback among it, has waited (0: none waits on a callback).',
    (w) => w.oldestSeconds,
  );
}
