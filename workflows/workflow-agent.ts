// What loop, sequential and parallel agents share: context, the Wire when they are the root, control
// (pause/resume/state), lifecycle events, and the RunOutput they return.
import { CancellationScope, isCancellation, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { WorkflowAgentRunInput, ZERO_USAGE, addUsage, type Escalation, type RunContext, type RunOutput, type TerminationReason, type Usage, type WorkflowAgentSpec } from '../common';
import { RunControl } from './control';
import { errorSummary, isContinueAsNew } from './run-errors';
import { failInvalidInput } from './run-input';
import { buildRunContext } from './run-context';
import { createEmitter, eventBase, type Emitter } from './emitter';
import { stateQuery, type RunState } from './messages';
import { EventLogWriter } from './event-log';
import { hostWire, type Wire, type WireState } from './wire';

/** The patch under which a root workflow agent writes its event log (commands runs of older code lack). */
export const WORKFLOW_AGENT_EVENT_LOG_PATCH = 'agio-workflow-agent-event-log';

/** A workflow agent's run while it executes. */
export interface WorkflowAgentRun {
  input: ReturnType<typeof WorkflowAgentRunInput.parse>;
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
}

/** The result of a workflow agent's body. */
export interface WorkflowAgentResult {
  response: string;
  terminationReason: TerminationReason;
  escalation?: Escalation;
}

/** Sets a workflow agent up, runs `body`, and publishes its terminal event (completed, failed or cancelled). */
export async function runWorkflowAgent(raw: WorkflowAgentRunInput, body: (run: WorkflowAgentRun) => Promise<WorkflowAgentResult>): Promise<RunOutput> {
  const parsed = WorkflowAgentRunInput.safeParse(raw);
  if (!parsed.success) return failInvalidInput(raw, parsed.error);
  const input = parsed.data;
  const spec = input.agent;
  const context = buildRunContext(spec, input.context, workflowInfo().workflowId);
  const wire = context.depth === 0 ? hostWire(input.resume?.wire as WireState | undefined) : undefined;
  const events = createEmitter(eventBase(context, spec.name, context.nestingType), wire, context.stream);
  const run: WorkflowAgentRun = {
    input,
    spec,
    context,
    wire,
    events,
    control: new RunControl(events, context.parentRunId),
    state: { ...input.state },
    usage: input.resume?.usage ?? ZERO_USAGE,
    startedAt: input.resume?.startedAt ?? Date.now(),
    ...(wire && patched(WORKFLOW_AGENT_EVENT_LOG_PATCH) ? { eventLog: new EventLogWriter(context, wire, input.resume?.loggedOffset) } : {}),
    progress: {},
  };
  let status: RunState['status'] = 'running';
  setHandler(stateQuery, (): RunState => ({
    runId: context.runId,
    agent: spec.name,
    kind: spec.kind,
    status,
    ...run.control.state(),
    ...run.progress,
    state: run.state,
    children: run.control.childIds(),
    pendingApprovals: [],
  }));
  // A root writes what its log lacks before its terminal event, and that event last (see event-log.ts).
  // The terminal event is timed before that write: workflow time read after a local activity can differ between the
  // live run and a replay of it, and the event must be the same in both.
  const finish = async (terminal: Parameters<typeof events.emit>[0]) => {
    const timestamp = Date.now();
    await run.eventLog?.writeLocally();
    await events.emit({ ...terminal, timestamp });
    await run.eventLog?.logTail();
  };
  try {
    if (!input.resume) await events.emit({ type: 'RUN_STARTED', data: { kind: spec.kind, subAgents: spec.subAgents.map((a) => a.name) } });
    const result = await body(run);
    status = 'completed';
    run.control.finish();
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
    };
    await finish({ type: 'RUN_COMPLETED', usage: run.usage, data: { response: result.response, terminationReason: result.terminationReason, state: run.state } });
    return output;
  } catch (err) {
    if (isContinueAsNew(err)) throw err;
    run.control.finish();
    const cancelled = isCancellation(err);
    status = cancelled ? 'cancelled' : 'failed';
    await CancellationScope.nonCancellable(() => finish({ type: cancelled ? 'RUN_CANCELLED' : 'RUN_FAILED', usage: run.usage, data: { error: errorSummary(err) } }));
    throw err;
  }
}

/** Adds a sub-agent's usage to the run's. */
export function addRunUsage(run: WorkflowAgentRun, usage: Usage): void {
  run.usage = addUsage(run.usage, usage);
}
