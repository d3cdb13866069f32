// What loop, sequential and parallel agents share: the run lifecycle every run has (see run-lifecycle.ts), their shared
// state and usage, the event log of a root, and the RunOutput they return. Each kind brings only its own loop.
import { patched, workflowInfo } from '@temporalio/workflow';
import {
  WorkflowAgentRunInput,
  ZERO_USAGE,
  addUsage,
  type AnyAgentSpec,
  type Escalation,
  type RunContext,
  type RunOutput,
  type SubAgentFailure,
  type TerminationReason,
  type Usage,
  type WorkflowAgentSpec,
} from '../../common';
import type { RunControl } from '../lifecycle/control';
import type { Emitter } from '../events/emitter';
import { EventLogWriter } from '../events/event-log';
import { failInvalidInput } from '../lifecycle/run-input';
import { failedSubAgent } from '../lifecycle/sub-agent-failures';
import { applyOutput, runSubAgent } from '../nesting/sub-agents';
import { buildRunContext } from '../lifecycle/run-context';
import { answerState, openRun, runLifecycle } from '../lifecycle/run-lifecycle';
import type { Wire } from '../events/wire';

/** The patch under which a root workflow agent writes its event log (commands runs of older code lack). */
export const WORKFLOW_AGENT_EVENT_LOG_PATCH = 'agio-workflow-agent-event-log';

/** A workflow agent's run while it executes. */
export interface WorkflowAgentRun {
  /** What the run was started with (its workflow argument): agent, prompt (`input`), context, state. */
  request: ReturnType<typeof WorkflowAgentRunInput.parse>;
  spec: WorkflowAgentSpec;
  context: RunContext;
  wire?: Wire;
  events: Emitter;
  control: RunControl;
  state: Record<string, unknown>;
  usage: Usage;
  startedAt: number;
  /**
   * A root's event log (see event-log.ts): written before the run continues as new and when it ends. Undefined for
   * nested runs, and for roots started before workflow agents wrote one (they replay without those writes).
   */
  eventLog?: EventLogWriter;
  /** Loop position shown by the state query. */
  progress: { timesLooped?: number; currentSubAgent?: string; currentSubAgentIndex?: number };
  /** Sub-agents that failed while the run went on (a parallel agent's branches), shown by the state query. */
  failures?: SubAgentFailure[];
}

/** The result of a workflow agent's body. */
export interface WorkflowAgentResult {
  response: string;
  terminationReason: TerminationReason;
  escalation?: Escalation;
  /** Sub-agents that failed although the run completed (see sub-agent-failures.ts). */
  failures?: SubAgentFailure[];
}

/** Sets a workflow agent up, runs `body` through the run lifecycle, and returns its RunOutput. */
export async function runWorkflowAgent(
  raw: WorkflowAgentRunInput,
  body: (run: WorkflowAgentRun) => Promise<WorkflowAgentResult>,
): Promise<RunOutput> {
  const parsed = WorkflowAgentRunInput.safeParse(raw);
  if (!parsed.success) return failInvalidInput(raw, parsed.error);
  const request = parsed.data;
  const spec = request.agent;
  const context = buildRunContext(spec, request.context, workflowInfo().workflowId);
  const frame = openRun(context, spec.name, request.resume);
  const { wire, events, control } = frame;
  const run: WorkflowAgentRun = {
    request,
    spec,
    context,
    wire,
    events,
    control,
    state: { ...request.state },
    usage: request.resume?.usage ?? ZERO_USAGE,
    startedAt: request.resume?.startedAt ?? Date.now(),
    ...(wire && patched(WORKFLOW_AGENT_EVENT_LOG_PATCH)
      ? { eventLog: new EventLogWriter(context, wire, request.resume?.loggedOffset) }
      : {}),
    progress: {},
  };
  answerState(frame, spec.name, spec.kind, () => ({
    ...run.progress,
    state: run.state,
    ...(run.failures ? { failures: run.failures } : {}),
    usage: run.usage,
    ...(context.limits.maxCostUsd !== undefined ? { maxCostUsd: context.limits.maxCostUsd } : {}),
  }));
  return runLifecycle(frame, {
    start: request.resume
      ? undefined
      : () =>
          events.emit({ type: 'RUN_STARTED', data: { kind: spec.kind, subAgents: spec.subAgents.map((a) => a.name) } }),
    work: async () => {
      const result = await body(run);
      const output: RunOutput = {
        response: result.response,
        runId: context.runId,
        ...(context.sessionId ? { sessionId: context.sessionId } : {}),
        usage: run.usage,
        metrics: { steps: 0, modelCalls: 0, toolCalls: 0, toolErrors: 0, durationMs: Date.now() - run.startedAt },
        terminationReason: result.terminationReason,
        steps: [],
        state: run.state,
        ...(result.escalation ? { escalation: result.escalation } : {}),
        ...(result.failures ? { failures: result.failures } : {}),
      };
      const data = {
        response: result.response,
        terminationReason: result.terminationReason,
        state: run.state,
        ...(result.failures ? { status: 'completed_with_failures', failures: result.failures } : {}),
      };
      return { output, completed: { type: 'RUN_COMPLETED', usage: run.usage, data } };
    },
    // A root writes what its log lacks before its terminal event, and that event last (see event-log.ts).
    // The terminal event is timed before that write: workflow time read after a local activity can differ between the
    // live run and a replay of it, and the event must be the same in both.
    close: async (_ending, terminal) => {
      const timestamp = Date.now();
      await run.eventLog?.writeLocally();
      await events.emit({ ...terminal, timestamp });
      await run.eventLog?.logTail();
    },
    usage: () => run.usage,
  });
}

/** Adds a sub-agent's usage to the run's. */
export function addRunUsage(run: WorkflowAgentRun, usage: Usage): void {
  run.usage = addUsage(run.usage, usage);
}

/**
 * Runs one sub-agent of a sequence or a loop as the child `childId`, on the run's input and state; its usage and its
 * output (into the state) are the run's. A failed child fails the run (SubAgentsFailed, naming it).
 */
export async function runSubAgentInTurn(run: WorkflowAgentRun, sub: AnyAgentSpec, childId: string): Promise<RunOutput> {
  const { context, control, request } = run;
  const out = await runSubAgent({
    parent: context,
    spec: sub,
    input: request.input,
    state: run.state,
    childId,
    control,
    spentTokens: run.usage.totalTokens,
  }).catch((err: unknown) => failedSubAgent(sub, childId, err));
  addRunUsage(run, out.usage);
  run.state = applyOutput(run.state, sub, out);
  return out;
}
