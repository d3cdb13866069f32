// Run-level metrics the worker reads off the events its runs append to their own Wires (the wire sink: once per
// event, never on replay): runs started and ended, steps, runs paused (by reason) and tool calls waiting for a person,
// with the age of the oldest wait. A worker counts what its own runs did; sum them across workers.
import { Counter, Gauge, type Registry } from 'prom-client';
import { isTerminalType, type WireEvent } from '../common/events';
import type { RunObserver } from '../activities/observer';

/** Pause reasons kept as label values; any other reason (free text from whoever paused) is counted as `operator`. */
export const PAUSE_REASONS = ['budget'];

const TERMINAL_STATUS: Record<string, string> = {
  RUN_COMPLETED: 'completed',
  RUN_FAILED: 'failed',
  RUN_CANCELLED: 'cancelled',
};

interface Wait {
  runId: string;
  since: number;
}

/** A pause or wait this old is checked against visibility at the next scrape (and then as often). */
export const RECHECK_AFTER_MS = 30_000;

/** Of the runs named, those still running (visibility); the run event metrics forget the pauses and waits of others. */
export type StillRunning = (runIds: string[]) => Promise<Set<string>>;

/** The run event metrics, the observer that feeds them, and where they check that runs are still open. */
export interface RunEventMetrics extends RunObserver {
  /**
   * A run Temporal ends without its terminal event (terminated, timed out) leaves its pause and waits behind: pauses and
   * waits older than {@link RECHECK_AFTER_MS} are checked with `stillRunning` when Prometheus scrapes, at most that often.
   */
  recheckWith(stillRunning: StillRunning): void;
}

/** The run event metrics of one registry, and the observer that feeds them. */
export function runEventMetrics(
  registry: Registry,
  now: () => number = Date.now,
  recheckAfterMs = RECHECK_AFTER_MS,
): RunEventMetrics {
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
    help: 'Steps committed (STEP_COMPLETED), by agent and role (assistant: a model turn; tool: a tool result; system, user).',
    labelNames: ['agent', 'role'],
    registers,
  });
  const paused = new Map<string, Wait & { reason: string }>();
  const waiting = new Map<string, Wait>();
  let stillRunning: StillRunning | undefined;
  let rechecked = 0;
  let rechecking: Promise<void> | undefined;
  // Before the gauges read the maps: runs no longer running lose their pauses and waits (one recheck at a time).
  const recheck = async () => {
    if (!stillRunning || now() - rechecked < recheckAfterMs) return rechecking;
    rechecked = now();
    const old = [...paused.values(), ...waiting.values()].filter((w) => now() - w.since > recheckAfterMs);
    const ids = [...new Set(old.map((w) => w.runId))];
    if (!ids.length) return;
    rechecking = stillRunning(ids).then(
      (running) => {
        for (const id of ids) if (!running.has(id)) forget(id);
      },
      (err: Error) => console.warn(`agio metrics: could not check paused and waiting runs: ${err.message}`),
    );
    return rechecking;
  };
  new Gauge({
    name: 'agio_runs_paused',
    help: `Runs paused now, by reason (${[...PAUSE_REASONS, 'operator'].join(', ')}).`,
    labelNames: ['reason'],
    registers,
    async collect() {
      await recheck();
      this.reset();
      for (const reason of [...PAUSE_REASONS, 'operator']) this.set({ reason }, 0);
      for (const pause of paused.values()) this.inc({ reason: pause.reason });
    },
  });
  new Gauge({
    name: 'agio_run_oldest_pause_seconds',
    help: 'How long the longest-paused run has been paused, by reason (0: none paused).',
    labelNames: ['reason'],
    registers,
    async collect() {
      await recheck();
      this.reset();
      const oldest = new Map([...PAUSE_REASONS, 'operator'].map((reason) => [reason, 0]));
      for (const pause of paused.values())
        oldest.set(pause.reason, Math.max(oldest.get(pause.reason) ?? 0, (now() - pause.since) / 1000));
      for (const [reason, age] of oldest) this.set({ reason }, age);
    },
  });
  new Gauge({
    name: 'agio_approvals_waiting',
    help: 'Tool calls waiting for a person to approve or deny them now.',
    registers,
    async collect() {
      await recheck();
      this.set(waiting.size);
    },
  });
  new Gauge({
    name: 'agio_approval_oldest_wait_seconds',
    help: 'How long the oldest tool call waiting for approval has waited (0: none waits).',
    registers,
    async collect() {
      await recheck();
      let oldest = now();
      for (const wait of waiting.values()) oldest = Math.min(oldest, wait.since);
      this.set(Math.max(0, (now() - oldest) / 1000));
    },
  });

  const forget = (runId: string) => {
    paused.delete(runId);
    for (const [key, wait] of waiting) if (wait.runId === runId) waiting.delete(key);
  };
  const runEvent = (e: WireEvent) => {
    // A nested run that keeps its own log appears in its parent's as copies of its start and end: counted once, in
    // its own log.
    if (e.ownLog) return;
    const run = { agent: e.agent, depth: String(e.depth) };
    const callId = e.toolCallId ?? (e.data as { toolCallId?: string } | undefined)?.toolCallId;
    switch (e.type) {
      case 'RUN_STARTED':
        return void started.inc(run);
      case 'STEP_COMPLETED':
        return void steps.inc({ agent: e.agent, role: e.snapshot?.role ?? 'unknown' });
      case 'RUN_PAUSED': {
        const reason = (e.data as { reason?: string } | undefined)?.reason ?? '';
        const known = PAUSE_REASONS.includes(reason) ? reason : 'operator';
        return void paused.set(e.runId, { runId: e.runId, reason: known, since: e.timestamp });
      }
      case 'RUN_RESUMED':
        return void paused.delete(e.runId);
      case 'TOOL_AUTH_REQUIRED':
        return void waiting.set(`${e.runId}#${callId}`, { runId: e.runId, since: e.timestamp });
      case 'TOOL_AUTH_GRANTED':
      case 'TOOL_AUTH_DENIED':
        return void waiting.delete(`${e.runId}#${callId}`);
    }
    if (isTerminalType(e.type)) {
      ended.inc({ ...run, status: TERMINAL_STATUS[e.type] ?? 'unknown' });
      forget(e.runId);
    }
  };
  return {
    runEvents(events) {
      for (const e of events) runEvent(e);
    },
    recheckWith(check) {
      stillRunning = check;
    },
  };
}
