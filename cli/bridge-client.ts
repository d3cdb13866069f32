// The CLI's way to a running bridge: JSON requests with the bearer token, and run events over SSE (the
// `eventsource` package, which reconnects with Last-Event-ID by itself after a dropped connection).
import { EventSource } from 'eventsource';
import { EventType, endsStream, type AgioEvent } from '../common';

/** Talks to an Agio bridge. */
export class BridgeClient {
  /** `token`: the bearer token, or a function giving it when the first request needs it (and throwing when none). */
  constructor(
    readonly url: string,
    private readonly tokenOf: string | (() => string),
  ) {}

  private get token(): string {
    return typeof this.tokenOf === 'string' ? this.tokenOf : this.tokenOf();
  }

  /** Sends a request; throws with the bridge's error code and message on a non-2xx answer. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((err: unknown) => {
      throw this.unreachable(err);
    });
    const text = await res.text();
    const json = text
      ? (JSON.parse(text) as T & { error?: { code: string; message: string } })
      : ({} as T & { error?: undefined });
    if (!res.ok)
      throw new Error(json.error ? `${json.error.message} (${res.status} ${json.error.code})` : `HTTP ${res.status}`);
    return json;
  }

  /** The error for a bridge that did not answer: fetch's own says only "fetch failed", naming no URL. */
  private unreachable(err: unknown): Error {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = [(err as Error).message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
    return new Error(`cannot reach the bridge at ${this.url} (${why}); is it running? Set AGIO_URL to its URL.`, {
      cause: err,
    });
  }

  /**
   * Follows a run's events after `after` (an offset, or an event's SSE id: a tree cursor such as `17~5:3`) until the
   * root's terminal event.
   */
  streamEvents(runId: string, onEvent: (event: AgioEvent) => void, after: number | string = -1): Promise<void> {
    const token = this.token;
    const url = new URL(`${this.url}/runs/${encodeURIComponent(runId)}/events`);
    if (String(after) !== '-1') url.searchParams.set('after', String(after));
    return new Promise((resolve, reject) => {
      // A bridge that never answered is not retried for ever (silently): a dropped stream is, once one was open.
      let opened = false;
      const source = new EventSource(url, {
        fetch: (input, init) =>
          fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }).catch(
            (err: unknown) => {
              if (!opened) {
                source.close();
                reject(this.unreachable(err));
              }
              throw err;
            },
          ),
      });
      source.addEventListener('open', () => (opened = true));
      const onMessage = (message: { data: string }) => {
        const event = JSON.parse(message.data) as AgioEvent;
        onEvent(event);
        if (endsStream(event)) {
          source.close();
          resolve();
        }
      };
      for (const type of EventType.options) source.addEventListener(type, onMessage);
      source.addEventListener('error', (err) => {
        // CONNECTING means the client is already retrying with Last-Event-ID; CLOSED means it gave up.
        if (source.readyState === EventSource.CLOSED)
          reject(new Error(`event stream failed: ${(err as { message?: string }).message ?? 'closed'}`));
      });
    });
  }
}
