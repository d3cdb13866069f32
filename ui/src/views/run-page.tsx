// One run, live: the stream folded into a run tree, re-rendered at most once per frame.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { runPath, type Api, type RunSummary } from '../api';
import { clock, duration, tokens } from '../format';
import { followRun, type StreamStatus } from '../run-stream';
import { applyEvent, emptyTree, pendingApprovals, treeUsage } from '../run-tree';
import { linkTo, runUrl } from '../router';
import { Approvals } from './approvals';
import { RunControls } from './run-controls';
import { RunMessage } from './run-message';
import { RunNode } from './run-node';
import { Lineage, RescueApi, RetryButton } from './rescue';
import { applyTimelineEvent, emptyTimeline } from '../timeline/model';
import { Timeline } from './timeline';

export function RunPage({ api, runId }: { api: Api; runId: string }) {
  const tree = useMemo(emptyTree, [runId]);
  const timeline = useMemo(emptyTimeline, [runId]);
  // Steps (the tree) or the timeline: ?view=timeline, so a link can open either.
  const [view, setView] = useState(() => new URLSearchParams(location.search).get('view') ?? 'steps');
  const [, setVersion] = useState(0);
  const [stream, setStream] = useState<StreamStatus>({ phase: 'connecting', reconnects: 0 });
  const [summary, setSummary] = useState<RunSummary>();
  const [error, setError] = useState<string>();
  const rerender = () => setVersion((v) => v + 1);
  const followedEnded = useRef(() => (tree.runs[runId]?.status ?? 'running') !== 'running').current;

  useEffect(() => {
    api.get<RunSummary>(runPath(runId)).then(setSummary, (err: Error) => setError(err.message));
    return followRun(api, runId, {
      resumeAt: () => tree.lastEventId,
      onEvents: (batch) => {
        for (const { event, id } of batch) if (applyEvent(tree, event, id)) applyTimelineEvent(timeline, event);
        rerender();
      },
      ended: followedEnded,
      onStatus: setStream,
      runClosed: async () => {
        const described = await api.get<RunSummary>(runPath(runId));
        setSummary(described);
        return described.status !== 'running';
      },
    });
  }, [api, runId]);

  // Durations of running runs tick.
  const running = !followedEnded();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(rerender, 1000);
    return () => clearInterval(timer);
  }, [running]);

  const run = tree.runs[runId];
  if (error) return <p class="error card">{error}</p>;
  const status = run?.status ?? summary?.status ?? 'loading';
  return (
    <>
      <section class="card run-head" data-testid="run-head">
        <div class="row">
          <h1>{run?.agent ?? summary?.agent ?? 'run'}</h1>
          <span class={`badge ${status}`} data-testid="run-status">
            {status}
          </span>
          {run?.paused && (
            <span class="badge paused" data-testid="run-paused">
              paused{run.pauseReason ? `: ${run.pauseReason}` : ''}
            </span>
          )}
          <span class={`stream ${stream.phase}`} data-testid="stream-phase" title={stream.error}>
            {stream.phase}
            {stream.reconnects ? ` · ${stream.reconnects} reconnect${stream.reconnects > 1 ? 's' : ''}` : ''}
          </span>
        </div>
        <code class="run-id">{runId}</code>
        {run?.parentRunId && (
          <p>
            Part of <a {...linkTo(runUrl(tree.rootRunId ?? run.parentRunId))}>its root run</a>
          </p>
        )}
        <dl class="facts">
          <dt>Started</dt>
          <dd>{clock(run?.startedAt ?? summary?.startTime)}</dd>
          <dt>Took</dt>
          <dd data-testid="run-duration">
            {run?.startedAt ? duration((run.endedAt ?? Date.now()) - run.startedAt) : '–'}
          </dd>
          <dt>Usage (whole tree)</dt>
          <dd data-testid="tree-usage" data-total={run ? treeUsage(tree, runId).totalTokens : undefined}>
            {run ? tokens(treeUsage(tree, runId)) : '–'}
          </dd>
          <dt>Events</dt>
          <dd
            data-testid="event-stats"
            data-durable={tree.durableEvents}
            data-first={tree.firstOffset}
            data-last={tree.lastOffset}
            data-deltas={tree.deltas}
            data-duplicates={tree.duplicates}
            data-gaps={tree.gaps}
            data-offsets={Object.values(tree.logs).reduce((sum, last) => sum + last + 1, 0)}
            data-pointers={tree.pointers}
          >
            {tree.durableEvents} (offsets {tree.firstOffset ?? '–'}–{tree.lastOffset}), {tree.deltas} live deltas
            {tree.duplicates ? `, ${tree.duplicates} repeats dropped` : ''}
            {tree.gaps ? `, ${tree.gaps} gaps` : ''}
          </dd>
        </dl>
        <Lineage summary={summary} />
        {run && <RunControls api={api} run={run} />}
        <RetryButton api={api} runId={runId} status={status} />
        {run && <RunMessage api={api} run={run} />}
      </section>
      <Approvals api={api} approvals={pendingApprovals(tree)} />
      <ViewTabs view={view} onChange={setView} />
      {!run ? (
        <p class="muted card">Waiting for the run's first event…</p>
      ) : view === 'timeline' ? (
        <Timeline timeline={timeline} now={Date.now()} />
      ) : (
        <RescueApi.Provider value={api}>
          <RunNode tree={tree} runId={runId} />
        </RescueApi.Provider>
      )}
    </>
  );
}

/** Steps or timeline; the choice goes into the page's URL (replacing it, not adding to the history). */
function ViewTabs({ view, onChange }: { view: string; onChange(view: string): void }) {
  const choose = (next: string) => {
    const url = new URL(location.href);
    if (next === 'steps') url.searchParams.delete('view');
    else url.searchParams.set('view', next);
    history.replaceState(null, '', url);
    onChange(next);
  };
  return (
    <div class="view-tabs" role="group" aria-label="View">
      {['steps', 'timeline'].map((name) => (
        <button key={name} aria-pressed={view === name} data-testid={`view-${name}`} onClick={() => choose(name)}>
          {name === 'steps' ? 'Steps' : 'Timeline'}
        </button>
      ))}
    </div>
  );
}
