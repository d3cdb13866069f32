// A view that keeps itself current by asking the bridge again: now, then every few seconds while the tab is visible.
import { useEffect } from 'preact/hooks';

/**
 * Calls `load` now and every `everyMs` while the tab is visible, handing each answer to `onAnswer` (and a failure's
 * message to `onError`), until `deps` change or the view goes; answers that arrive after that are dropped.
 */
export function usePolling<T>(
  load: () => Promise<T>,
  handle: { onAnswer: (answer: T) => void; onError: (message: string) => void },
  everyMs: number,
  deps: unknown[],
): void {
  useEffect(() => {
    let live = true;
    const poll = () =>
      load().then(
        (answer) => live && handle.onAnswer(answer),
        (err: Error) => live && handle.onError(err.message),
      );
    void poll();
    const timer = setInterval(() => document.visibilityState === 'visible' && void poll(), everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // The caller names what the load depends on.
  }, deps);
}
