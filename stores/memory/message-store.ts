// MessageStore in memory: each run's conversation as an array of versioned messages (lost when the process exits;
// a run then writes its conversation again, see activities/model/stored-conversation.ts).
import type { ChatMessage } from '../../common';
import { RecordId, isId } from '../records';
import type { MessageStore, StoredMessage } from '../types';

/** Runs' conversations in Maps. */
export class MemoryMessageStore implements MessageStore {
  /** Per tenant, per workflow run: messages by position. */
  private readonly runs = new Map<string, Map<string, (StoredMessage | undefined)[]>>();

  /** Nothing to prepare in memory. */
  async setup(): Promise<void> {}

  async put(
    tenant: string,
    runId: string,
    version: number,
    messages: { index: number; message: ChatMessage }[],
  ): Promise<void> {
    RecordId.parse(tenant);
    RecordId.parse(runId);
    let runs = this.runs.get(tenant);
    if (!runs) this.runs.set(tenant, (runs = new Map()));
    let stored = runs.get(runId);
    if (!stored) runs.set(runId, (stored = []));
    for (const { index, message } of messages) {
      if ((stored[index]?.version ?? -Infinity) >= version) continue;
      stored[index] = { index, version, message: structuredClone(message) };
    }
  }

  async read(tenant: string, runId: string, count: number): Promise<StoredMessage[]> {
    if (!isId(tenant) || !isId(runId) || !Number.isFinite(count)) return [];
    const stored = this.runs.get(tenant)?.get(runId) ?? [];
    return stored
      .slice(0, Math.max(0, count))
      .filter((m): m is StoredMessage => m !== undefined)
      .map((m) => structuredClone(m));
  }
}
