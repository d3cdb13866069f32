// Retry and fork in the viewer (issue 35): "Retry from last good step" on a run that failed, was cancelled or timed
// out; "Fork from here" on a step (a tool result or user message can be replaced, the model changed); and the run's
// lineage (what it was retried or forked from, and what was made from it). Each opens the new run's page.
import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { runPath, type Api, type RunSummary } from '../api';
import { linkTo, navigate, runUrl } from '../router';
import { lacksScope, useScope } from '../scopes';

/** The viewer's API for the fork buttons of a run page's steps (none: no buttons). */
export const RescueApi = createContext<Api | undefined>(undefined);

const RETRYABLE = ['failed', 'cancelled', 'terminated', 'timed_out'];

/** A retry or fork that started (POST /runs/:id/retry or /fork). */
interface Rescued {
  runId: string;
}

/** Retry from the last good step, for a run that ended without completing. */
export function RetryButton({ api, runId, status }: { api: Api; runId: string; status: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const mayStart = useScope(api, 'start');
  if (!RETRYABLE.includes(status)) return null;
  if (!mayStart) return <div class="controls muted">retry: {lacksScope('start')}</div>;
  const retry = async () => {
    setBusy(true);
    setError(undefined);
    try {
      navigate(runUrl((await api.post<Rescued>(`${runPath(runId)}/retry`)).runId));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="controls">
      <button data-testid="retry" disabled={busy} onClick={() => void retry()}>
        {busy ? 'Retrying…' : 'Retry from last good step'}
      </button>
      {error && <span class="error">{error}</span>}
    </div>
  );
}

/** Where the run came from, and the retries and forks made from it. */
export function Lineage({ summary }: { summary?: RunSummary }) {
  if (!summary) return null;
  const { retriedFrom, forkedFrom, step, rescues = [] } = summary;
  if (!retriedFrom && !forkedFrom && !rescues.length) return null;
  return (
    <p class="lineage" data-testid="lineage">
      {retriedFrom && (
        <>
          Retry of <a {...linkTo(runUrl(retriedFrom))}>{retriedFrom}</a>.{' '}
        </>
      )}
      {forkedFrom && (
        <>
          Fork of <a {...linkTo(runUrl(forkedFrom))}>{forkedFrom}</a> at step {step}.{' '}
        </>
      )}
      {rescues.map((r) => (
        <span key={r.runId} data-testid="rescue">
          {r.retriedFrom ? 'Retried as ' : `Forked at step ${r.step} as `}
          <a {...linkTo(runUrl(r.runId))}>{r.runId}</a>.{' '}
        </span>
      ))}
    </p>
  );
}

/**
 * "Fork from here" on step `step` of run `runId`: an assistant step is asked again, a tool step (`role: 'tool'`) gets
 * the result typed here, a user step the message typed here; the model can be changed.
 */
export function ForkButton({
  runId,
  step,
  role,
  current,
}: {
  runId: string;
  step: number;
  role: 'user' | 'assistant' | 'tool';
  current?: string;
}) {
  const api = useContext(RescueApi);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(current ?? '');
  const [model, setModel] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  if (!api) return null;
  if (!open)
    return (
      <button class="secondary fork" data-testid="fork-from-here" data-step={step} onClick={() => setOpen(true)}>
        Fork from here
      </button>
    );
  const fork = async () => {
    setBusy(true);
    setError(undefined);
    const edits = {
      ...(model ? { model } : {}),
      ...(role === 'tool' ? { toolResult: text } : {}),
      ...(role === 'user' && text !== current ? { userMessage: text } : {}),
    };
    try {
      navigate(runUrl((await api.post<Rescued>(`${runPath(runId)}/fork`, { step, edits })).runId));
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <div class="fork-form" data-testid="fork-form">
      {role !== 'assistant' && (
        <textarea
          data-testid="fork-text"
          aria-label={role === 'tool' ? 'tool result' : 'user message'}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      )}
      <input
        data-testid="fork-model"
        placeholder="model (optional)"
        value={model}
        onInput={(e) => setModel(e.currentTarget.value)}
      />
      <button data-testid="fork-start" disabled={busy} onClick={() => void fork()}>
        {busy ? 'Forking…' : `Fork at step ${step}`}
      </button>
      <button class="secondary" disabled={busy} onClick={() => setOpen(false)}>
        Close
      </button>
      {error && <span class="error">{error}</span>}
    </div>
  );
}
