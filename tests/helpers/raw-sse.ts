// An SSE response read as raw text with fetch, for tests that check how a stream ends (comments included, and whether
// the body ended cleanly or the connection was cut), which an EventSource client hides.
import { waitFor } from './workflow-agents';

/** A stream being read. */
export interface RawSse {
  status: number;
  /** Everything received so far. */
  text(): string;
  /** Resolves with the whole body once the server has ended it cleanly; rejects when the connection is cut. */
  ended: Promise<string>;
  /** Waits until the body contains `fragment`. */
  waitForText(fragment: string, timeoutMs?: number): Promise<void>;
  /** Stops reading (client side). */
  close(): void;
}

/** Opens `url` (bearer `token`) and reads its body as it arrives. */
export async function openRawSse(url: string, token: string): Promise<RawSse> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  let text = '';
  const ended = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    return text;
  })();
  ended.catch(() => undefined);
  return {
    status: res.status,
    text: () => text,
    ended,
    waitForText: (fragment, timeoutMs = 30_000) =>
      waitFor(`"${fragment}" in the stream`, () => text.includes(fragment), timeoutMs).then(() => undefined),
    close: () => abort.abort(),
  };
}
