// The life of every run, agent runs and workflow agents alike: it opens (its Wire when it is the root, its emitter, its
// control and its state query), starts, works, and ends once, completed, failed or cancelled, with its terminal event
// published last. A continue-as-new passes through untouched; each kind of agent brings only its own work.
import { CancellationScope, isCancellation, setHandler } from '@temporalio/workflow';
import type { ReportedRunPhase, RunContext, RunEnding, Usage } from '../common';
import { stateQuery, type ControlRequest, type RunState } from '../common/messages';
import { RunControl } from './control';
import { createEmitter, eventBase, type Emitter } from './emitter';
import { errorSummary, isContinueAsNew } from './run-errors';
import { failuresOf } from './sub-agent-failures';
import { hostWire, type Wire, type WireState } from './wire';

/** What every run has while it executes. */
export interface RunFrame {
  context: RunContext;
  /** The root's Wire (a nested run publishes into its root's). */
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
  /** What a failure is rethrown as (a nested agent run attaches what it spent); cancellations are rethrown as they are. */
  failure?: (err: unknown) => unknown;
}

/**
 * Opens a run: hosts the Wire when it is the root (with what the previous run carried across continue-as-new), and sets
 * up its emitter and control (a pause carried across continue-as-new starts it parked).
 */
export function openRun(
  context: RunContext,
  agent: string,
  carried?: { wire?: unknown; paused?: ControlRequest },
): RunFrame {
  const wire = context.depth === 0 ? hostWire(carried?.wire as WireState | undefined) : undefined;
  const events = createEmitter(eventBase(context, agent, context.nestingType), wire, context.stream);
  return {
    context,
    wire,
    events,
    control: new RunControl(events, context.parentRunId, carried?.paused),
    status: 'running',
  };
}

/** Answers the state query: what every run reports, with what its kind adds (`details`, read at each query). */
export function answerState(
  frame: RunFrame,
  agent: string,
  kind: RunState['kind'],
  details: () => Partial<RunState>,
): void {
  setHandler(stateQuery, (): RunState => ({
    runId: frame.context.runId,
    agent,
    kind,
    status: frame.status,
    ...frame.control.state(),
    children: frame.control.childIds(),
    pendingApprovals: [],
    ...details(),
  }));
}

/** Starts the run, does its work and ends it: completed with its output, or failed or cancelled with the error rethrown. */
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
