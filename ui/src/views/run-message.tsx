// A small box to add a user message to a running agent run (POST /runs/:id/messages): Send queues it for the run's
// next model call, Interrupt cancels the call in flight and asks again with it. The run's stream then shows it.
import { useState } from 'preact/hooks';
import { runPath, type Api } from '../api';
import type { RunView } from '../run-tree';
import { lacksScope, useScope } from '../scopes';

/** The message box of a running agent run (workflow agents take no messages: their sub-agents do). */
export function RunMessage({ api, run }: { api: Api; run: RunView }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState<'enqueue' | 'interrupt'>();
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const mayStart = useScope(api, 'start');
  if (run.status !== 'running' || (run.kind !== undefined && run.kind !== 'llm')) return null;
  if (!mayStart)
    return (
      <div class="controls muted" data-testid="no-message">
        messages: {lacksScope('start')}
      </div>
    );
  const send = async (mode: 'enqueue' | 'interrupt') => {
    if (!text.trim()) return;
    setBusy(mode);
    setError(undefined);
    try {
      await api.post(`${runPath(run.runId)}/messages`, { text, mode });
      setText('');
      setNote(mode === 'interrupt' ? 'sent: the model is asked again with it' : 'sent: read at the next turn');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <form
      class="controls message-box"
      data-testid="message-box"
      onSubmit={(e) => {
        e.preventDefault();
        void send('enqueue');
      }}
    >
      <input
        aria-label="message to the run"
        placeholder="add a message to the run"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit" data-testid="send-message" disabled={!!busy || !text.trim()}>
        {busy === 'enqueue' ? 'Sending…' : 'Send'}
      </button>
      <button
        type="button"
        class="secondary"
        data-testid="interrupt-message"
        disabled={!!busy || !text.trim()}
        onClick={() => void send('interrupt')}
      >
        {busy === 'interrupt' ? 'Interrupting…' : 'Interrupt'}
      </button>
      {note && !error && <span class="muted">{note}</span>}
      {error && <span class="error">{error}</span>}
    </form>
  );
}
