// One streaming run of PEER × B2: starts a 1-step peer run whose answer streams `chunks` tokens, has the
// subscriber process follow it, and measures every token from the model writing it to the subscriber receiving
// it, split by the run's history into publish signal → workflow task → poll Update; plus the run's event counts.
import { temporal } from '@temporalio/proto';
import type { PeerEnv } from './peer-env';
import { countByType, eventTime, type BenchEnv, type History } from './setup';

const PUBLISH_SIGNAL = '__temporal_workflow_stream_publish';

export interface RunSample {
  /** The workflow completed (not terminated at the phase deadline, not failed). */
  completed: boolean;
  latencies: number[];
  splits: { publishMs: number; applyMs: number; readMs: number }[];
  unmatched: number;
  /** Written tokens the subscriber never received. */
  missing: number;
  events: number;
  signals: number;
  polls: number;
  /** WorkflowTaskTimedOut events: the worker did not finish a workflow task within 10 s. */
  wftTimeouts: number;
  /** Why the run failed, or why its subscriber could not tell the workflow it was done. */
  error?: string;
}

/** For every text delta in the run's publish signals: when the server accepted the signal, and when the
 * workflow task that appended it to the WorkflowStream log completed. */
function signalTimes(history: History): Map<string, { signalAt: number; appliedAt: number }> {
  const out = new Map<string, { signalAt: number; appliedAt: number }>();
  const pending: { deltas: string[]; signalAt: number }[] = [];
  for (const e of history.events ?? []) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === PUBLISH_SIGNAL) {
      const data = signal.input?.payloads?.[0]?.data;
      if (!data) continue;
      const batch = JSON.parse(Buffer.from(data).toString('utf8')) as { items: { data: string }[] };
      const deltas = batch.items.flatMap((item) => {
        const payload = temporal.api.common.v1.Payload.decode(Buffer.from(item.data, 'base64'));
        const event = JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')) as { type?: string; delta?: string };
        return event.type === 'output_text_delta' && event.delta ? [event.delta] : [];
      });
      pending.push({ deltas, signalAt: eventTime(e) });
    } else if (e.workflowTaskCompletedEventAttributes && pending.length) {
      for (const p of pending.splice(0))
        for (const d of p.deltas) out.set(d, { signalAt: p.signalAt, appliedAt: eventTime(e) });
    }
  }
  return out;
}

export type PeerHandle = Awaited<ReturnType<PeerEnv['start']>>;

/**
 * Streams one run (`chunks` tokens `intervalMs` apart; `written` maps each token to when the model wrote it)
 * and measures it. `drain`: the workflow waits for the subscriber before it returns. Handles go to `started`
 * (so a phase can terminate them). Never throws: a failed run is a sample with `completed: false`.
 */
export async function streamOne(
  env: BenchEnv,
  peer: PeerEnv,
  tag: string,
  chunks: number,
  intervalMs: number,
  written: Map<string, number>,
  drain = true,
  started: PeerHandle[] = [],
): Promise<RunSample> {
  let open!: () => void;
  env.gates.set(tag, new Promise<void>((resolve) => (open = resolve)));
  const opener = setTimeout(() => open(), 15_000); // never hold the model forever
  try {
    const handle = await peer.start(
      { steps: 1, tag, ...(chunks ? { stream: { chunks, intervalMs } } : {}) },
      true,
      drain,
    );
    started.push(handle);
    const sub = peer.subscribe(handle.workflowId, tag, drain);
    void sub.opened.then(() => open()); // the subscriber is attached: let the model answer
    const [followed, result] = await peer.alive(Promise.allSettled([sub.done, handle.result()]));
    const history = await handle.fetchHistory();
    const times = signalTimes(history);
    const deltas = followed.status === 'fulfilled' ? followed.value.deltas : [];
    const latencies: number[] = [];
    const splits: RunSample['splits'] = [];
    let unmatched = 0;
    for (const [content, receivedAt] of deltas) {
      const at = written.get(content);
      if (at === undefined) {
        unmatched++;
        continue;
      }
      latencies.push(receivedAt - at);
      const t = times.get(content);
      if (t)
        splits.push({
          publishMs: t.signalAt - at,
          applyMs: t.appliedAt - t.signalAt,
          readMs: receivedAt - t.appliedAt,
        });
    }
    const counts = countByType(history);
    const signalError = followed.status === 'fulfilled' ? followed.value.signalError : undefined;
    const error =
      result.status === 'rejected'
        ? `run: ${(result.reason as Error).message}`
        : followed.status === 'rejected'
          ? `subscriber: ${(followed.reason as Error).message}`
          : signalError
            ? `done signal: ${signalError}`
            : undefined;
    return {
      completed: result.status === 'fulfilled',
      latencies,
      splits,
      unmatched,
      missing: Math.max(0, chunks - latencies.length),
      events: history.events?.length ?? 0,
      signals: counts.WorkflowExecutionSignaled ?? 0,
      polls: counts.WorkflowExecutionUpdateAccepted ?? 0,
      wftTimeouts: counts.WorkflowTaskTimedOut ?? 0,
      ...(error ? { error } : {}),
    };
  } catch (err) {
    // One broken run must not lose the phase: count it.
    return {
      completed: false,
      latencies: [],
      splits: [],
      unmatched: 0,
      missing: chunks,
      events: 0,
      signals: 0,
      polls: 0,
      wftTimeouts: 0,
      error: (err as Error).message,
    };
  } finally {
    clearTimeout(opener);
    env.gates.delete(tag);
  }
}
