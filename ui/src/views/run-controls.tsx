// Pause, resume and cancel (the bridge's control routes); the run's own events then show what happened.
import { useState } from 'preact/hooks';
import { runPath, type Api } from '../api';
import type { RunView } from '../run-tree';
import { lacksScope, useScope } from '../scopes';

export function RunControls({ api, run }: { api: Api; run: RunView }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string>();
  const mayControl = useScope(api, 'control');
  if (run.status !== 'running') return null;
  if (!mayControl)
    return (
      <div class="controls muted" data-testid="no-control">
        pause, resume and cancel: {lacksScope('control')}
      </div>
    );
  const act = async (action: 'pause' | 'resume' | 'cancel') => {
    setBusy(action);
    setError(undefined);
    try {
      await api.post(`${runPath(run.runId)}/${action}`, action === 'cancel' || !reason ? {} : { reason });
      setReason('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(undefined);
      setConfirming(false);
    }
  };
  return (
    <div class="controls">
      <input placeholder="reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      {run.paused ? (
        <button data-testid="resume" disabled={!!busy} onClick={() => void act('resume')}>
          {busy === 'resume' ? 'Resuming…' : 'Resume'}
        </button>
      ) : (
        <button data-testid="pause" disabled={!!busy} onClick={() => void act('pause')}>
          {busy === 'pause' ? 'Pausing…' : 'Pause'}
        </button>
      )}
      {confirming ? (
        <button class="danger" data-testid="confirm-cancel" disabled={!!busy} onClick={() => void act('cancel')}>
          Really cancel
        </button>
      ) : (
        <button class="secondary" data-testid="cancel" disabled={!!busy} onClick={() => setConfirming(true)}>
          Cancel run
        </button>
      )}
      {error && <span class="error">{error}</span>}
    </div>
  );
}
