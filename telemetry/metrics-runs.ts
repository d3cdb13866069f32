// Runs by agent and status from Temporal visibility, counted when Prometheus scrapes (one count per agent, grouped by
// status) and kept for a few seconds, so many scrapers cost one round of counts. Root runs, every tenant, within the
// namespace's retention; a run that continued as new counts once, as its latest execution.
import type { ConnectionLike } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Gauge, type Registry } from 'prom-client';
import { runStatusOf } from '../common/run-status';
import { RunSearchAttributes } from '../common/search-attributes';

/** How long counted runs are served before visibility is asked again. */
export const RUN_COUNT_TTL_MS = 10_000;

/** What run counts need: the namespace's visibility and the agents to count. */
export interface RunCountSource {
  connection: ConnectionLike;
  namespace: string;
  agents: () => string[];
  /** Count only the runs of this task queue (a worker's: the fleet it is part of); absent: the whole namespace. */
  taskQueue?: string;
}

/** A string as a visibility query's literal. */
export const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Counts one agent's runs by Agio status (`running`, `completed`, …). */
async function countByStatus(source: RunCountSource, agent: string): Promise<Map<string, number>> {
  const response = await source.connection.workflowService.countWorkflowExecutions({
    namespace: source.namespace,
    query: `${RunSearchAttributes.agent.name} = ${quote(agent)}${source.taskQueue ? ` AND TaskQueue = ${quote(source.taskQueue)}` : ''} AND ExecutionStatus != 'ContinuedAsNew' GROUP BY ExecutionStatus`,
  });
  const counts = new Map<string, number>();
  for (const group of response.groups ?? []) {
    const value = group.groupValues?.[0];
    const name = value ? defaultPayloadConverter.fromPayload<string>(value) : '';
    // Visibility names statuses `Running`, `Canceled`, `TimedOut`: Agio's names are the execution statuses' lowercased.
    const status =
      runStatusOf(name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()) ??
      (name === 'Canceled' ? 'cancelled' : name.toLowerCase());
    counts.set(status, (counts.get(status) ?? 0) + Number(group.count ?? 0));
  }
  return counts;
}

/**
 * `load()`'s answer, kept `ttlMs` so that many scrapers (and several gauges of one scrape) cost one round of visibility
 * calls; a load that fails is forgotten at once, so the next read asks again, and reported once to `failed`.
 */
export function keptFor<T>(
  ttlMs: number,
  load: () => Promise<T>,
  now: () => number,
  failed?: (err: Error) => void,
): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!cached || now() - cached.at > ttlMs) {
      const mine = { at: now(), value: load() };
      mine.value.catch((err: Error) => {
        if (cached === mine) cached = undefined;
        failed?.(err);
      });
      cached = mine;
    }
    return cached.value;
  };
}

/** Registers `agio_runs{agent,status}` and `agio_runs_count_errors_total`, counted from visibility at scrape time. */
export function runCountMetrics(registry: Registry, source: RunCountSource, now: () => number = Date.now): void {
  const countAll = keptFor(
    RUN_COUNT_TTL_MS,
    async () => {
      const all = new Map<string, Map<string, number>>();
      for (const agent of source.agents()) all.set(agent, await countByStatus(source, agent));
      return all;
    },
    now,
  );
  let errors = 0;
  new Gauge({
    name: 'agio_runs',
    help: 'Root runs by agent and status (running, completed, failed, …) as Temporal visibility counts them.',
    labelNames: ['agent', 'status'],
    registers: [registry],
    async collect() {
      let counts: Map<string, Map<string, number>>;
      try {
        counts = await countAll();
      } catch (err) {
        errors++;
        console.warn(`agio metrics: visibility could not count runs: ${(err as Error).message}`);
        return;
      }
      this.reset();
      for (const [agent, byStatus] of counts)
        for (const status of ['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'])
          this.set({ agent, status }, byStatus.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'agio_runs_count_errors',
    help: 'Scrapes at which visibility could not count runs (agio_runs then holds the last counts).',
    registers: [registry],
    collect() {
      this.set(errors);
    },
  });
}
