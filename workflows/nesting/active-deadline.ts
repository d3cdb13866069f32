// An agent tool's deadline counts only the time its child works: not the time it (or a run below it) waits for a
// person (an approval) or stays paused. Each agent-tool child tells its parent when it starts and stops waiting; the
// parent's timer stands still meanwhile.
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  log,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { childWaitingSignal } from '../../common/messages';
import type { RunControl } from '../lifecycle/control';

/**
 * The patch under which an agent tool's timeoutMs counts only its child's active time, a child that passes it has
 * {@link CANCEL_GRACE_MS} to end before its parent stops waiting for it, and the child has no execution timeout (which
 * would count its waits). A child run started under it tells its parent when it starts and stops waiting.
 */
export const ACTIVE_DEADLINE_PATCH = 'agio-agent-tool-active-deadline';

/** How long a timed-out child has to end cleanly before its parent stops waiting for it. */
export const CANCEL_GRACE_MS = 60_000;

/** What a run is waiting on besides its children: its approvals still undecided. */
export interface WaitSources {
  control: RunControl;
  pendingApprovals: () => number;
}

/**
 * Which of a run's children wait (for a person, or paused), and, for an agent-tool child that reports, whether the run
 * itself waits: paused, or with nothing running but undecided approvals and children that wait themselves.
 */
export class WaitTracker {
  private readonly waitingChildren = new Set<string>();
  private reported = false;

  /** `reportTo`: the parent to tell (an agent-tool child under ACTIVE_DEADLINE_PATCH), else nobody. */
  constructor(
    private readonly sources: WaitSources,
    reportTo?: string,
  ) {
    setHandler(childWaitingSignal, ({ childId, waiting }) => {
      if (waiting) this.waitingChildren.add(childId);
      else this.waitingChildren.delete(childId);
    });
    // A cancelled run stops reporting (its parent cancelled it, or the whole tree is being cancelled).
    if (reportTo) void this.report(reportTo).catch(() => undefined);
  }

  /** Whether the child `childId` said it waits. */
  childWaiting(childId: string): boolean {
    return this.waitingChildren.has(childId);
  }

  /** Whether this run waits: paused, or nothing but people and waiting children stand between it and its next step. */
  waiting(): boolean {
    const { control, pendingApprovals } = this.sources;
    if (control.state().paused) return true;
    const children = control.childIds();
    return (pendingApprovals() > 0 || children.length > 0) && children.every((id) => this.waitingChildren.has(id));
  }

  /** Tells the parent each time the run starts or stops waiting (one signal per change, never while it runs on). */
  private async report(parentRunId: string): Promise<void> {
    const parent = getExternalWorkflowHandle(parentRunId);
    const childId = workflowInfo().workflowId;
    for (;;) {
      await condition(() => this.waiting() !== this.reported);
      this.reported = !this.reported;
      await parent
        .signal(childWaitingSignal, { childId, waiting: this.reported })
        .catch((err: Error) => log.warn(`could not tell ${parentRunId} that this run waits: ${err.message}`));
    }
  }
}

/**
 * Runs `work` in its own scope and cancels it once it has been active `ms` milliseconds, time during which `waiting()`
 * holds not counted (`onTimeout` is called first). A cancelled `work` that has not ended {@link CANCEL_GRACE_MS}
 * later is given up on: the returned promise rejects with `gaveUp`'s error.
 */
export async function withActiveDeadline<T>(
  ms: number,
  work: () => Promise<T>,
  waiting: () => boolean,
  onTimeout: () => void,
  gaveUp: () => Error,
): Promise<T> {
  const scope = new CancellationScope();
  const timer = new CancellationScope();
  let giveUp!: (err: Error) => void;
  const abandoned = new Promise<never>((_, reject) => (giveUp = reject));
  void timer
    .run(async () => {
      await activeTime(ms, waiting);
      onTimeout();
      scope.cancel();
      await sleep(CANCEL_GRACE_MS);
      giveUp(gaveUp());
    })
    .catch(() => undefined); // the work ended first
  try {
    return await Promise.race([scope.run(work), abandoned]);
  } finally {
    timer.cancel();
  }
}

/** Resolves once `ms` milliseconds have passed during which `waiting()` did not hold. */
async function activeTime(ms: number, waiting: () => boolean): Promise<void> {
  let left = ms;
  while (left > 0) {
    if (waiting()) await condition(() => !waiting());
    const from = Date.now();
    const paused = await condition(waiting, left);
    left = paused ? left - (Date.now() - from) : 0;
  }
}
