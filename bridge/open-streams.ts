// The bridge's open SSE responses, so a closing bridge can end each one cleanly before Fastify waits for its open
// requests: an SSE response on a live run never ends by itself, and Ctrl-C would wait for it forever.
import { sseComment } from './sse';

/** Every SSE response this bridge is streaming, each with the way it says goodbye. */
export class OpenStreams {
  private readonly goodbyes = new Set<() => void>();
  private closed = false;

  /**
   * Registers a stream's goodbye (called at most once, on shutdown); returns the function that forgets it. A stream
   * whose request was still being answered when the bridge began closing says goodbye at once.
   */
  add(goodbye: () => void): () => void {
    if (this.closed) {
      goodbye();
      return () => undefined;
    }
    this.goodbyes.add(goodbye);
    return () => this.goodbyes.delete(goodbye);
  }

  /** How many streams are open. */
  get size(): number {
    return this.goodbyes.size;
  }

  /** Ends every open stream (bridge shutdown): each client gets a last comment and a clean end of its response. */
  closeAll(): void {
    this.closed = true;
    const goodbyes = [...this.goodbyes];
    this.goodbyes.clear();
    for (const goodbye of goodbyes) goodbye();
  }
}

/**
 * The last frame of a stream the bridge ends because it is shutting down: a comment (clients ignore it; EventSource
 * then reconnects by itself with its Last-Event-ID), naming the id to resume after for clients that read it.
 */
export const goingAwayComment = (lastEventId: string): string =>
  sseComment(`bridge shutting down; reconnect with Last-Event-ID: ${lastEventId}`);
