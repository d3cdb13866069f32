// One run of the tree: its header (agent, status, timings, usage, position), its steps with their tool calls, and
// nested runs in place: an agent used as a tool under its call, a workflow agent's sub-agents after its steps.
import type { RunTree, RunView } from '../run-tree';
import { treeUsage } from '../run-tree';
import { clock, duration, pretty, tokens } from '../format';
import { StepItem } from './step-item';

export function RunNode({ tree, runId }: { tree: RunTree; runId: string }) {
  const run = tree.runs[runId];
  if (!run) return null;
  const nestedUnderCalls = new Set(run.steps.flatMap((s) => s.toolCalls.map((c) => c.childRunId)).filter(Boolean));
  const subRuns = run.children.filter((id) => !nestedUnderCalls.has(id));
  return (
    <section
      class={`run-node depth-${Math.min(run.depth, 6)}`}
      data-testid="run-node"
      data-run-id={run.runId}
      data-agent={run.agent}
      data-status={run.status}
    >
      <RunHeader tree={tree} run={run} />
      {run.input !== undefined && run.depth === 0 && (
        <details class="input">
          <summary>Input</summary>
          <pre>{pretty(run.input)}</pre>
        </details>
      )}
      <ol class="steps">
        {run.steps.map((step) => (
          <StepItem key={step.stepId} tree={tree} step={step} renderRun={(id) => <RunNode tree={tree} runId={id} />} />
        ))}
      </ol>
      {subRuns.map((id) => (
        <RunNode key={id} tree={tree} runId={id} />
      ))}
      {run.notices.length > 0 && (
        <ul class="notices">
          {run.notices.map((n) => (
            <li class={`notice ${n.type.toLowerCase()}`}>
              <time>{clock(n.at)}</time> {n.text}
            </li>
          ))}
        </ul>
      )}
      {run.error && (
        <p class="error" data-testid="run-error">
          {run.error}
        </p>
      )}
    </section>
  );
}

function RunHeader({ tree, run }: { tree: RunTree; run: RunView }) {
  const took = run.startedAt ? duration((run.endedAt ?? Date.now()) - run.startedAt) : '–';
  const hasChildren = run.children.length > 0;
  return (
    <header class="run-header">
      <strong class="agent">{run.agent}</strong>
      {run.kind && run.kind !== 'llm' && <span class="kind">{run.kind}</span>}
      {run.nestingType && <span class="muted">{run.nestingType === 'agent_tool' ? 'as a tool' : 'sub-agent'}</span>}
      <span class={`badge ${run.status}`}>{run.status}</span>
      {run.paused && <span class="badge paused">paused</span>}
      <span class="muted">{took}</span>
      <span class="muted" title="this run's own model calls">
        {tokens(run.ownUsage)}
      </span>
      {hasChildren && <span class="muted">tree: {tokens(treeUsage(tree, run.runId))}</span>}
      {run.retries > 0 && <span class="badge retry">{run.retries} retries</span>}
      {run.position && <Position run={run} />}
      {run.terminationReason && run.terminationReason !== 'completed' && (
        <span class="badge">{run.terminationReason}</span>
      )}
    </header>
  );
}

function Position({ run }: { run: RunView }) {
  const p = run.position!;
  const parts = [
    p.timesLooped !== undefined ? `iteration ${p.timesLooped + 1}` : undefined,
    p.currentSubAgent
      ? `at ${p.currentSubAgent}${p.currentSubAgentIndex !== undefined ? ` (#${p.currentSubAgentIndex + 1})` : ''}`
      : undefined,
    p.branches ? `branches: ${p.branches.join(', ')}` : undefined,
  ].filter(Boolean);
  return (
    <span class="position" data-testid="position">
      {parts.join(' · ')}
    </span>
  );
}
