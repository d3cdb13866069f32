// Starts a run of one of the bridge's agents (POST /runs) and opens it.
import { useState } from 'preact/hooks';
import type { AgentSummary, Api } from '../api';
import { navigate, runUrl } from '../router';
import { lacksScope, useScope } from '../scopes';

export function StartRun({ api, agents }: { api: Api; agents: AgentSummary[] }) {
  const [agent, setAgent] = useState('');
  const [input, setInput] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const mayStart = useScope(api, 'start');
  const chosen = agent || agents[0]?.name || '';
  return (
    <form
      class="card start"
      data-testid="start-run"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const { runId } = await api.post<{ runId: string }>('/runs', { agent: chosen, input });
          navigate(runUrl(runId));
        } catch (err) {
          setError((err as Error).message);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Start a run</h2>
      <div class="row">
        <select name="agent" value={chosen} onChange={(e) => setAgent(e.currentTarget.value)}>
          {agents.map((a) => (
            <option value={a.name} title={a.description}>
              {a.name} ({a.kind})
            </option>
          ))}
        </select>
        <textarea
          name="input"
          rows={2}
          placeholder="input"
          value={input}
          onInput={(e) => setInput(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !mayStart || !chosen || !input.trim()}>
          Start
        </button>
      </div>
      {!mayStart && (
        <p class="muted" data-testid="no-start">
          Starting runs: {lacksScope('start')}.
        </p>
      )}
      {error && <p class="error">{error}</p>}
    </form>
  );
}
