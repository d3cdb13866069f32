// A fake sender of publish batches over jest's fake clock, for the tests of WirePublisher and wireStepSink: every time
// is exact.
import type { EventDraft, PublishBatch } from '../../common';

export const INTERVAL = 30;
export const HOLD = 5;
export const T0 = 1_700_000_000_000;

export interface Sent {
  batch: PublishBatch;
  startedAt: number;
  deliveredAt?: number;
}

/** A BatchSender that records every attempt; `behave` decides per attempt how long it takes and whether it fails. */
export function fakeSender(
  behave: (attempt: number, batch: PublishBatch) => { delayMs?: number; fail?: Error } = () => ({}),
) {
  const attempts: Sent[] = [];
  const send = async (batch: PublishBatch): Promise<void> => {
    const rec: Sent = { batch: structuredClone(batch), startedAt: Date.now() };
    attempts.push(rec);
    const { delayMs, fail } = behave(attempts.length, batch);
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (fail) throw fail;
    rec.deliveredAt = Date.now();
  };
  const delivered = () => attempts.filter((a) => a.deliveredAt !== undefined);
  return { send, attempts, delivered };
}

let n = 0;
export function ev(extra: Partial<EventDraft> = {}): EventDraft {
  return {
    type: 'STEP_DELTA',
    runId: 'r',
    rootRunId: 'r',
    agent: 'a',
    depth: 0,
    timestamp: Date.now(),
    delta: { content: `t${n++}` },
    ...extra,
  };
}

export const tick = () => jest.advanceTimersByTimeAsync(0);

/** Runs each test of the file on jest's fake clock, starting at T0. */
export function useFakeClock(): void {
  beforeEach(() => {
    jest.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });
}
