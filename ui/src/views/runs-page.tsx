// The runs list: the tenant's runs, newest first, filtered by agent and status (kept in the URL), refreshed while
// open; and a form to start a run.
import { useEffect, useState } from 'preact/hooks';
import type { AgentSummary, Api, RunSummary } from '../api';
import { clock, duration } from '../format';
import { linkTo, listUrl, navigate, runUrl } from '../router';
import { RUN_STATUSES } from '../../../common/run-statuses';
import { StartRun } from './start-run';
import { usePolling } from '../polling';

const REFRESH_MS = 5000;

export function RunsPage({ api, agent, status }: { api: Api; agent?: string; status?: string }) {
  const [agents, setAgents] = useState<AgentSummary[]>([]);
  const [runs, setRuns] = useState<RunSummary[]>();
  const [next, setNext] = useState<string>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    api.get<{ agents: AgentSummary[] }>('/agents').then(
      (r) => setAgents(r.agents),
      (err: Error) => setError(err.message),
    );
  }, [api]);

  usePolling(
    () => {
      const query = new URLSearchParams({ limit: '50' });
      if (agent) query.set('agent', agent);
      if (status) query.set('status', status);
      return api.get<{ runs: RunSummary[]; nextPageToken?: string }>(`/runs?${query.toString()}`);
    },
    {
      onAnswer: (page) => {
        setRuns(page.runs);
        setNext(page.nextPageToken);
        setError(undefined);
      },
      onError: setError,
    },
    REFRESH_MS,
    [api, agent, status],
  );

  const more = async () => {
    const query = new URLSearchParams({ limit: '50', pageToken: next! });
    if (agent) query.set('agent', agent);
    if (status) query.set('status', status);
    const page = await api.get<{ runs: RunSummary[]; nextPageToken?: string }>(`/runs?${query.toString()}`);
    setRuns([...(runs ?? []), ...page.runs]);
    setNext(page.nextPageToken);
  };

  return (
    <>
      <StartRun api={api} agents={agents} />
      <section class="card">
        <div class="row">
          <h1>Runs</h1>
          <label>
            Agent{' '}
            <select
              data-testid="filter-agent"
              value={agent ?? ''}
              onChange={(e) => navigate(listUrl({ agent: e.currentTarget.value || undefined, status }), true)}
            >
              <option value="">all</option>
              {agents.map((a) => (
                <option value={a.name}>{a.name}</option>
              ))}
            </select>
          </label>
          <label>
            Status{' '}
            <select
              data-testid="filter-status"
              value={status ?? ''}
              onChange={(e) => navigate(listUrl({ agent, status: e.currentTarget.value || undefined }), true)}
            >
              <option value="">all</option>
              {RUN_STATUSES.map((s) => (
                <option value={s}>{s.replace(/_/g, ' ')}</option>
              ))}
            </select>
          </label>
        </div>
        {error && <p class="error">{error}</p>}
        {runs && runs.length === 0 && <p class="muted">No runs{agent || status ? ' match these filters' : ' yet'}.</p>}
        {runs && runs.length > 0 && (
          <table class="runs" data-testid="runs-table">
            <thead>
              <tr>
                <th>Status</th>
                <th>Agent</th>
                <th>Run</th>
                <th>Started</th>
                <th>Took</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr data-run-id={run.runId}>
                  <td>
                    <span class={`badge ${run.status}`}>{run.status.replace(/_/g, ' ')}</span>
                  </td>
                  <td>{run.agent}</td>
                  <td>
                    <a {...linkTo(runUrl(run.runId))}>{run.runId}</a>
                    {(run.retriedFrom || run.forkedFrom) && (
                      <span class="muted" data-testid="run-origin">
                        {run.retriedFrom ? ' retry' : ` fork at step ${run.step}`}
                      </span>
                    )}
                  </td>
                  <td>{clock(run.startTime)}</td>
                  <td>
                    {run.startTime
                      ? duration((run.closeTime ? Date.parse(run.closeTime) : Date.now()) - Date.parse(run.startTime))
                      : '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {next && (
          <button class="secondary" onClick={() => void more()}>
            More
          </button>
        )}
      </section>
    </>
  );
}
