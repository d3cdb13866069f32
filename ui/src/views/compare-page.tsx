// Two runs side by side (GET /runs/compare): each run's status, output or error, steps, tool calls, tokens, cost and
// time, the first step where they diverge, and their steps paired by index with the ones that differ marked.
import { useEffect, useState } from 'preact/hooks';
import type { RunComparison } from '../../../common/run-compare';
import type { Api } from '../api';
import { duration, prettyJson, tokens } from '../format';
import { compareUrl, linkTo, navigate, runUrl } from '../router';
import '../compare.css';

type Side = RunComparison['a'];
type ComparedStep = NonNullable<RunComparison['steps'][number]['a']>;

function RunFacts({ label, run }: { label: string; run: Side }) {
  return (
    <div data-testid={`compare-run-${label}`}>
      <h2>
        {label}: <a {...linkTo(runUrl(run.runId))}>{run.runId}</a>
      </h2>
      <dl class="facts">
        <dt>agent</dt>
        <dd>{run.agent ?? '–'}</dd>
        <dt>status</dt>
        <dd>
          <span class={`badge ${run.status}`}>{run.status.replace(/_/g, ' ')}</span>
        </dd>
        <dt>steps</dt>
        <dd data-testid="compare-steps">
          {run.steps} ({run.toolCalls} tool calls){run.stepsIncomplete ? ', first ones no longer held' : ''}
        </dd>
        <dt>usage</dt>
        <dd>{tokens(run.usage)}</dd>
        <dt>took</dt>
        <dd>{duration(run.durationMs)}</dd>
      </dl>
      {run.error && (
        <p class="error" data-testid="compare-error">
          {run.error.type ? `${run.error.type}: ` : ''}
          {run.error.message}
        </p>
      )}
      {run.output !== undefined && <pre data-testid="compare-output">{run.output}</pre>}
    </div>
  );
}

function StepCell({ step }: { step: ComparedStep | undefined }) {
  if (!step) return <td class="muted">–</td>;
  return (
    <td>
      <span class="role">{step.tool ? `tool ${step.tool}` : step.role}</span>
      {step.isError && <span class="badge error">error</span>}
      {step.totalTokens !== undefined && <span class="muted"> {step.totalTokens} tokens</span>}
      {step.durationMs !== undefined && <span class="muted"> {duration(step.durationMs)}</span>}
      {step.content && <pre>{step.content}</pre>}
      {step.toolCalls?.map((call) => (
        <pre class="tool-call">
          {call.name} {prettyJson(call.arguments)}
        </pre>
      ))}
    </td>
  );
}

function Comparison({ c }: { c: RunComparison }) {
  const delta = c.delta;
  return (
    <>
      <section class="card compare-runs">
        <RunFacts label="A" run={c.a} />
        <RunFacts label="B" run={c.b} />
      </section>
      <section class="card">
        <p data-testid="compare-divergence">
          {c.divergence
            ? `They diverge at step ${c.divergence.index} (${c.divergence.reason.replace(/_/g, ' ')}).`
            : 'Their steps are the same.'}
        </p>
        <p class="muted" data-testid="compare-delta">
          B − A: {delta.steps} steps, {delta.toolCalls} tool calls, {delta.totalTokens} tokens
          {delta.costUsd !== undefined ? `, $${delta.costUsd.toPrecision(2)}` : ''}
          {delta.durationMs !== undefined
            ? `, ${duration(Math.abs(delta.durationMs))} ${delta.durationMs < 0 ? 'faster' : 'slower'}`
            : ''}
        </p>
        <table class="runs compare-steps" data-testid="compare-table">
          <thead>
            <tr>
              <th>Step</th>
              <th>A</th>
              <th>B</th>
            </tr>
          </thead>
          <tbody>
            {c.steps.map((s) => (
              <tr
                class={s.same ? '' : 'differs'}
                data-index={s.index}
                data-same={s.same}
                data-testid={c.divergence?.index === s.index ? 'divergence-row' : undefined}
              >
                <td>{s.same ? s.index : `≠ ${s.index}`}</td>
                <StepCell step={s.a} />
                <StepCell step={s.b} />
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

export function ComparePage({ api, a, b }: { api: Api; a?: string; b?: string }) {
  const [runA, setRunA] = useState(a ?? '');
  const [runB, setRunB] = useState(b ?? '');
  const [comparison, setComparison] = useState<RunComparison>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    setComparison(undefined);
    setError(undefined);
    if (!a || !b) return;
    api
      .get<RunComparison>(`/runs/compare?${new URLSearchParams({ a, b }).toString()}`)
      .then(setComparison, (err: Error) => setError(err.message));
  }, [api, a, b]);

  return (
    <>
      <section class="card">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(compareUrl(runA.trim(), runB.trim()));
          }}
        >
          <h1>Compare</h1>
          <input
            data-testid="compare-a"
            placeholder="run A"
            value={runA}
            onInput={(e) => setRunA(e.currentTarget.value)}
          />
          <input
            data-testid="compare-b"
            placeholder="run B"
            value={runB}
            onInput={(e) => setRunB(e.currentTarget.value)}
          />
          <button type="submit" disabled={!runA.trim() || !runB.trim()}>
            Compare
          </button>
        </form>
        {error && <p class="error">{error}</p>}
        {a && b && !comparison && !error && <p class="muted">Reading both runs…</p>}
      </section>
      {comparison && <Comparison c={comparison} />}
    </>
  );
}
