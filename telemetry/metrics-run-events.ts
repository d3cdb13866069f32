// Run-level counters the worker reads off the events its runs append to their own Wires (the wire sink: once per
// event, never on replay): runs started and ended, and steps. A worker counts what its own runs did; sum them across
// workers. What runs wait on now (paused, approvals) is the fleet's, counted from visibility: metrics-waiting.ts.
import { Counter, type Registry } from 'prom-client';
import { isTerminalType, type WireEvent } from '../common/events';
import type { RunObserver } from '../activities/observer';
import { statusOfTerminalEvent } from '../common/run-statuses';

/** The run event counters of one registry, and the observer that feeds them. */
export function runEventMetrics(registry: Registry): RunObserver {
  const registers = [registry];
  const started = new Counter({
    name: 'agio_runs_started_total',
    help: 'Runs started (roots and nested runs), by agent and depth (0: a root).',
    labelNames: ['agent', 'depth'],
    registers,
  });
  const ended = new Counter({
    name: 'agio_runs_ended_total',
    help: 'Runs that ended, by agent, depth (0: a root) and status (completed, failed, cancelled).',
    labelNames: ['agent', 'depth', 'status'],
    registers,
  });
  const steps = new Counter({
    name: 'agio_steps_total',
    help: 'Steps committed (STEP_COMPLETED), by agent and role (assistant: a model turn; tool: a tool result).',
    labelNames: ['agent', 'role'],
    registers,
  });
  const runEvent = (e: WireEvent) => {
    // A nested run that keeps its own log appears in its parent's as copies of its start and end: counted once, in
    // its own log.
    if (e.ownLog) return;
    const run = { agent: e.agent, depth: String(e.depth) };
    if (e.type === 'RUN_STARTED') started.inc(run);
    else if (e.type === 'STEP_COMPLETED') steps.inc({ agent: e.agent, role: e.snapshot?.role ?? 'unknown' });
    else if (isTerminalType(e.type)) ended.inc({ ...run, status: statusOfTerminalEvent(e.type) ?? 'unknown' });
  };
  return {
    runEvents(events) {
      for (const e of events) runEvent(e);
    },
  };
}
