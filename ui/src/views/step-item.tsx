// One step: a system or user message (folded), an assistant turn (reasoning, text, tool calls, each call's result
// and nested run), or a tool result no call of this run shows (rare: its call was compacted away).
import type { ComponentChild } from 'preact';
import { callOf, runIdOf, type ApprovalView, type RunTree, type StepView, type ToolCallView } from '../run-tree';
import { duration, prettyJson, tokens } from '../format';
import { ForkButton } from './rescue';

export function StepItem({
  tree,
  step,
  renderRun,
}: {
  tree: RunTree;
  step: StepView;
  renderRun: (runId: string) => ComponentChild;
}) {
  if (step.role === 'tool') {
    // Shown under its call; only an orphan result gets a line of its own.
    if (step.toolCallId && callOf(tree, runIdOf(step), step.toolCallId)) return null;
    return (
      <li class="step tool" data-step-id={step.stepId}>
        <span class="role">tool {step.name}</span>
        <pre class={step.isError ? 'result error' : 'result'}>{step.content}</pre>
      </li>
    );
  }
  if (step.role === 'system' || step.role === 'user') {
    return (
      <li class={`step ${step.role}`} data-step-id={step.stepId}>
        <details open={step.role === 'user'}>
          <summary class="role">{step.role}</summary>
          <pre>{step.content}</pre>
          {step.role === 'user' && (
            <ForkButton runId={runIdOf(step)} step={step.index} role="user" current={step.content} />
          )}
        </details>
      </li>
    );
  }
  return (
    <li
      class={`step assistant${step.live ? ' live' : ''}`}
      data-testid="assistant-step"
      data-step-id={step.stepId}
      data-live={step.live}
    >
      <div class="step-meta">
        <span class="role">assistant</span>
        {step.live && (
          <span class="badge running">streaming{step.attempt > 1 ? ` (attempt ${step.attempt})` : ''}</span>
        )}
        {step.durationMs !== undefined && <span class="muted">{duration(step.durationMs)}</span>}
        {step.firstTokenMs !== undefined && <span class="muted">first token {duration(step.firstTokenMs)}</span>}
        {step.usage && <span class="muted">{tokens(step.usage)}</span>}
        {!step.live && <ForkButton runId={runIdOf(step)} step={step.index} role="assistant" />}
      </div>
      {step.reasoning && (
        <details class="reasoning" open={step.live}>
          <summary>reasoning</summary>
          <pre data-testid="reasoning">{step.reasoning}</pre>
        </details>
      )}
      {step.content && (
        <pre class="content" data-testid="step-content">
          {step.content}
        </pre>
      )}
      {step.toolCalls.map((call) => (
        <ToolCallItem
          key={call.id || call.name}
          runId={runIdOf(step)}
          call={call}
          approval={tree.approvals.find((a) => a.runId === runIdOf(step) && a.toolCallId === call.id)}
          nested={call.childRunId ? renderRun(call.childRunId) : undefined}
        />
      ))}
    </li>
  );
}

function ToolCallItem({
  runId,
  call,
  approval,
  nested,
}: {
  runId: string;
  call: ToolCallView;
  approval?: ApprovalView;
  nested?: ComponentChild;
}) {
  return (
    <div
      class={`tool-call ${call.status}`}
      data-testid="tool-call"
      data-call-id={call.id}
      data-status={call.status}
      data-tool={call.name}
    >
      <div class="step-meta">
        <code class="tool-name">{call.name || '…'}</code>
        <span class={`badge ${call.status}`}>{call.status.replace('_', ' ')}</span>
        {call.retries > 0 && <span class="badge retry">{call.retries} retries</span>}
        {call.status === 'waiting_callback' && call.callbackExpiresAt !== undefined && (
          <span class="muted" data-testid="callback-expiry">
            result due by {new Date(call.callbackExpiresAt).toLocaleString()}
          </span>
        )}
        {call.durationMs !== undefined && <span class="muted">{duration(call.durationMs)}</span>}
        {approval?.decision && <Decision approval={approval} />}
      </div>
      <pre class="args">{prettyJson(call.arguments)}</pre>
      {nested}
      {call.result !== undefined && (
        <details class="result" open={call.result.length < 400}>
          <summary>result</summary>
          <pre data-testid="tool-result" class={call.status === 'error' ? 'error' : undefined}>
            {call.result}
          </pre>
          {call.resultStep !== undefined && (
            <ForkButton runId={runId} step={call.resultStep} role="tool" current={call.result} />
          )}
        </details>
      )}
    </div>
  );
}

function Decision({ approval }: { approval: ApprovalView }) {
  const d = approval.decision!;
  const how =
    d.outcome === 'granted'
      ? `approved${d.remember ? ' (remembered)' : ''}`
      : d.reason === 'rule'
        ? 'denied by a rule'
        : d.reason === 'timeout'
          ? 'not approved in time'
          : 'denied';
  return (
    <span class="muted" data-testid="decision">
      {how}
      {d.by ? ` by ${d.by}` : ''}
      {d.message ? `: ${d.message}` : ''}
    </span>
  );
}
