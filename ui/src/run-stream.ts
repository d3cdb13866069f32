// Follows one run's SSE stream from the browser. EventSource cannot send a bearer token, so each connection first
// mints a short-lived stream token for this run (POST /runs/:id/stream-token). A dropped connection is resumed by the
// browser itself (it sends Last-Event-ID); once the browser gives up (an HTTP error, such as an expired token on
// that retry) a new token is minted and the stream reopens with ?after= at the last event the viewer has. The tree
// drops anything it already has, so nothing is shown twice and nothing is skipped.
import type { WireEvent } from '../../common';
import { ApiError, runPath, type Api } from './api';
import { EVENT_TYPES } from '../../common/event-types';

export type StreamPhase = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface StreamStatus {
  phase: StreamPhase;
  /** Connections opened after the first. */
  reconnects: number;
  error?: string;
}

export interface FollowOptions {
  /** Where to resume: the id of the last event applied (undefined: from the start). */
  resumeAt(): string | undefined;
  /** Events in arrival order with their SSE ids, batched (at most one call per frame). */
  onEvents(batch: { event: WireEvent; id: string }[]): void;
  /** True once the root's terminal event is applied: the stream is over. */
  ended(): boolean;
  onStatus(status: StreamStatus): void;
  /**
   * Whether the run is closed (asked when the bridge ends a stream the tree has no terminal event for, e.g. a
   * terminated run).
   */
  runClosed(): Promise<boolean>;
}

const MAX_BACKOFF_MS = 10_000;

/** Starts following; returns the function that stops. */
export function followRun(api: Api, runId: string, opts: FollowOptions): () => void {
  let source: EventSource | undefined;
  let stopped = false;
  let reconnects = 0;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let batch: { event: WireEvent; id: string }[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  const status = (phase: StreamPhase, error?: string) =>
    opts.onStatus({ phase, reconnects, ...(error ? { error } : {}) });
  const close = () => {
    source?.close();
    source = undefined;
  };
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (batch.length === 0) return;
    const events = batch;
    batch = [];
    opts.onEvents(events);
    if (opts.ended()) {
      close();
      status('ended');
    }
  };
  const onFrame = (e: Event) => {
    const message = e as MessageEvent<string>;
    batch.push({ event: JSON.parse(message.data) as WireEvent, id: message.lastEventId });
    flushTimer ??= setTimeout(flush, 16);
  };
  const retryLater = (error?: string) => {
    close();
    failures++;
    reconnects++;
    status('reconnecting', error);
    timer = setTimeout(() => void connect(), Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 5)));
  };

  async function connect(): Promise<void> {
    if (stopped) return;
    let events: string;
    try {
      events = (await api.post<{ events: string }>(`${runPath(runId)}/stream-token`)).events;
    } catch (err) {
      // 4xx: not this viewer's run (or no longer signed in): retrying cannot help.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) return status('failed', err.message);
      return retryLater((err as Error).message);
    }
    if (stopped) return;
    const after = opts.resumeAt();
    const es = new EventSource(after === undefined ? events : `${events}&after=${encodeURIComponent(after)}`);
    source = es;
    es.onopen = () => {
      failures = 0;
      status('live');
    };
    for (const type of EVENT_TYPES) es.addEventListener(type, onFrame);
    // Events of types this release does not know (a newer release's) come as plain messages.
    es.addEventListener('message', onFrame);
    es.addEventListener('error', (e) => {
      flush();
      if (stopped || source !== es || opts.ended()) return;
      // The bridge's own `event: error` frame: the stream failed on its side (it closes the connection next).
      const reported =
        e instanceof MessageEvent && typeof e.data === 'string'
          ? (JSON.parse(e.data) as { error?: { message?: string } }).error?.message
          : undefined;
      if (es.readyState === EventSource.CLOSED) return retryLater(reported);
      reconnects++;
      status('reconnecting', reported);
      // The bridge ends a closed run's stream only after sending all of its log: a run closed without a terminal
      // event (terminated, timed out) has nothing more to send, and the browser's retries would go on forever.
      void opts.runClosed().then(
        (closed) => {
          if (!closed || stopped || source !== es) return;
          close();
          status('ended');
        },
        () => undefined,
      );
    });
  }

  void connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    flush();
    close();
  };
}
