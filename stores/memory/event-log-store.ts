// EventLogStore in memory: each root run's events in an array kept in offset order.
import { AgioEvent, type WireEvent } from '../../common';
import { RecordId, isId } from '../records';
import type { EventLogStore } from '../types';

/** Event logs in Maps; lost when the process exits. */
export class MemoryEventLogStore implements EventLogStore {
  /** Per tenant, per root run: events by ascending offset. */
  private readonly logs = new Map<string, Map<string, WireEvent[]>>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async append(tenant: string, rootRunId: string, events: WireEvent[]): Promise<void> {
    RecordId.parse(tenant);
    RecordId.parse(rootRunId);
    const parsed = events.map((e) => AgioEvent.parse(e));
    let runs = this.logs.get(tenant);
    if (!runs) this.logs.set(tenant, (runs = new Map()));
    let log = runs.get(rootRunId);
    if (!log) runs.set(rootRunId, (log = []));
    for (const event of parsed) {
      // A repeated offset is a retried write: the first write stays.
      const at = firstAfter(log, event.offset - 1);
      if (log[at]?.offset !== event.offset) log.splice(at, 0, structuredClone(event));
    }
  }

  async read(tenant: string, rootRunId: string, after: number, limit: number): Promise<WireEvent[]> {
    if (!isId(tenant) || !isId(rootRunId) || !Number.isFinite(after)) return [];
    const log = this.logs.get(tenant)?.get(rootRunId) ?? [];
    const start = firstAfter(log, after);
    return log.slice(start, start + Math.max(0, limit)).map((e) => structuredClone(e));
  }
}

/** Index of the first event with offset > after (binary search: logs are long and read a page at a time). */
function firstAfter(log: WireEvent[], after: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log[mid].offset <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
