// The life of every run, agent runs and workflow agents alike: it opens (its Wire when it is the root, its emitter, its
// control and its state query), starts, works, and ends once, completed, failed or cancelled, with its terminal event
// published last. A continue-as-new passes through untouched; each kind of agent brings only its own work.
import { CancellationScope, isCancellation, patched, setHandler } from '@temporalio/workflow';
import type { ReportedRunPhase, RunContext, RunEnding, Usage } from '../../common';
import { stateQuery, type ControlRequest, type RunState } from '../../common/messages';
import { RunControl } from './control';
import { createEmitter, eventBase, type Emitter } from '../events/emitter';
import { errorSummary, isContinueAsNew } from './run-errors';
import { failuresOf } from './sub-agent-failures';
import { indexWaiting } from './waiting-index';
import { hostWire, type Wire, type WireState } from '../events/wire';

/**
 * The patch under which a tree's nested runs keep their own event logs: each hosts its own Wire (and event log in the
 * stores, and pushes its events under its own id), and sends its parent only copies of its start and end, so the
 * root's history grows with its own steps and its children, not with every nested step. Asked once, when a root
 * starts; the answer is in the run context, which every nested run inherits.
 */
export const NESTED_EVENT_LOGS_PATCH = 'agio-nested-event-logs';

/** Whether a run hosts a Wire: the root, and a nested run of a tree whose nested runs keep their own logs. */
export function keepsOwnLog(context: Pick<RunContext, 'depth' | 'ownLogs'>): boolean {
  return context.depth === 0 || context.ownLogs === true;
}

/** What every run has while it executes. */
export interface RunFrame {
  context: RunContext;
  /** The run's own Wire: the root's, or a nested run's own (older trees: none; it publishes into its root's). */
  wire?: Wire;
  events: Emitter;
  control: RunControl;
  /** What the state query reports. */
  status: ReportedRunPhase;
}

/** An event a run ends with: RUN_COMPLETED, RUN_FAILED or RUN_CANCELLED. */
export type TerminalEvent = Parameters<Emitter['emit']>[0];

/** How one kind of run starts, works and ends; {@link runLifecycle} calls each at its moment. */
export interface RunPhases<T> {
  /** Announces a new run (RUN_STARTED, its first records). Absent for a run continued as new: it was announced. */
  start?: () => Promise<void>;
  /** The run's work: its output, and the RUN_COMPLETED event that reports it. */
  work: () => Promise<{ output: T; completed: TerminalEvent }>;
  /** Records how the run ended, then publishes `terminal` (the last event the run publishes). */
  close: (ending: RunEnding, terminal: TerminalEvent) => Promise<void>;
  /** What the run has spent so far (its RUN_FAILED or RUN_CANCELLED event carries it). */
  usage: () => Usage;
  /**
   * What a failure is rethrown as (a nested agent run attaches what it spent); cancellations are rethrown as they are.
   */
  failure?: (err: unknown) => unknown;
}

/**
 * Opens a run: hosts its Wire when it keeps one (with what the previous run carried across continue-as-new), and sets
 * up its emitter and control (a pause carried across continue-as-new starts it parked). A root that starts decides
 * here, first thing, whether its tree's nested runs keep their own logs (carried across continue-as-new after that).
 */
export function openRun(
  context: RunContext,
  agent: string,
  carried?: { wire?: unknown; paused?: ControlRequest },
): RunFrame {
  if (context.depth === 0 && !carried) {
    if (patched(NESTED_EVENT_LOGS_PATCH)) context.ownLogs = true;
    else delete context.ownLogs;
  }
  const wire = keepsOwnLog(context)
    ? hostWire(carried?.wire as WireState | undefined, context.depth === 0 ? context.rootRunId : context.runId)
    : undefined;
  const events = createEmitter(eventBase(context, agent, context.nestingType), wire, context.stream);
  return {
    context,
    wire,
    events,
    control: new RunControl(events, context.parentRunId, carried?.paused, context.limits),
    status: 'running',
  };
}

/**
 * Answers the state query: what every run reports, with what its kind adds (`details`, read at each query), and keeps
 * what the run waits on in its search attributes.
 */
export function answerState(
  frame: RunFrame,
  agent: string,
  kind: RunState['kind'],
  details: () => Partial<RunState>,
): void {
  const state = (): RunState => ({
    runId: frame.context.runId,
    agent,
    kind,
    status: frame.status,
    ...frame.control.state(),
    children: frame.control.childIds(),
    pendingApprovals: [],
    ...details(),
  });
  setHandler(stateQuery, state);
  // What the run waits on goes into its search attributes (runs opened since WAITING_ATTRIBUTES_PATCH).
  indexWaiting(() => {
    const { pendingApprovals, pendingCallbacks } = details();
    return {
      ...frame.control.state(),
      pendingApprovals: pendingApprovals?.length ?? 0,
      pendingCallbacks: pendingCallbacks?.length ?? 0,
    };
  });
}

/**
 * Starts the run, does its work and ends it: completed with its output, or failed or cancelled with the error rethrown.
 */
export async function runLifecycle<T>(frame: RunFrame, phases: RunPhases<T>): Promise<T> {
  try {
    await phases.start?.();
    const { output, completed } = await phases.work();
    frame.status = 'completed';
    frame.control.finish();
    await phases.close('completed', completed);
    return output;
  } catch (err) {
    if (isContinueAsNew(err)) throw err;
    frame.control.finish();
    const cancelled = isCancellation(err);
    const ending = cancelled ? 'cancelled' : 'failed';
    frame.status = ending;
    // Closed even when the run is being cancelled: a reader that sees the run end finds it recorded.
    const terminal: TerminalEvent = {
      type: cancelled ? 'RUN_CANCELLED' : 'RUN_FAILED',
      usage: phases.usage(),
      data: { error: errorSummary(err), ...failuresOf(err) },
    };
    await CancellationScope.nonCancellable(() => phases.close(ending, terminal));
    throw cancelled || !phases.failure ? err : phases.failure(err);
  }
}
