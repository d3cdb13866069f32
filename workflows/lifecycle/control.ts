// Operator control of a run: pause and resume (signals and updates), safe points, and forwarding to the
// children running at the time, so pausing the root pauses the whole tree. A paused run waits on a
// condition: no timer, no polling, no worker CPU.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { Emitter } from '../events/emitter';
import {
  budgetRaiseSignal,
  childParkedSignal,
  pauseSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  upgradeSignal,
  type ControlRequest,
  type ControlState,
} from '../../common/messages';
import { ErrorType } from '../../common/errors';
import { budgetPauseData, type BudgetRaise, type BudgetSpent } from '../../common/budgets';
import { targetVersionChanged } from './upgrade';

/**
 * The patch under which the pause update's validator refuses a pause while the run is paused or a pause is pending
 * (each accepted pause update stays in flight until the run parks, and Temporal admits only 10 in-flight updates per
 * workflow: more pauses during a long model call would lock out resume and approvals). Decided when a pause first takes
 * effect, so only runs that were paused carry its marker; a rejected update leaves nothing in the history.
 */
export const PAUSE_DEDUPE_PATCH = 'agio-refuse-duplicate-pause';

/**
 * The patch under which a run paused while it waits on a person (an approval, a callback tool's result) publishes
 * RUN_PAUSED once it is parked there, and RUN_RESUMED when it is resumed, as a run parked at a safe point does; before,
 * such a run published neither unless it later reached a safe point still paused. Asked when a run first parks that
 * way, so only runs that did carry its marker.
 */
export const WAITING_PAUSE_EVENTS_PATCH = 'agio-pause-events-while-waiting';

/** Pause state, safe points and the children to forward control to. */
export class RunControl {
  private paused = false;
  private parked = false;
  private request: ControlRequest = {};
  private inFlight = 0;
  /** Branches waiting for a person (a tool-call decision, then resume): they hold nothing. */
  private waitingForPeople = 0;
  private readonly children = new Map<string, ChildWorkflowHandle<never>>();
  private readonly parkedChildren = new Set<string>();
  private reportedParked = false;
  private finished = false;

  /** A run that continued as new while paused starts parked, without announcing the pause a second time. */
  private carriedPark = false;
  /** An operator asked the run to move to the current worker version (see upgradeSignal). */
  private upgradeRequested = false;
  /** Refuse a pause update while paused (see PAUSE_DEDUPE_PATCH); decided by the first pause that takes effect. */
  private refuseDuplicatePauses = false;
  /** The budget the run is paused for (see {@link waitForBudget}). */
  private budget?: BudgetSpent;
  /** RUN_PAUSED was published (or a pause carried) for the current pause: RUN_RESUMED is owed once it is resumed. */
  private owesResume = false;
  /** The RUN_RESUMED last published (awaited by whoever else wakes at the same resume). */
  private resuming: Promise<void> = Promise.resolve();
  /** What the latest resume said (RUN_RESUMED's data). */
  private resumedWith: ControlRequest = {};
  /** How many times the run was resumed (a resume and a new pause in one workflow task still count). */
  private resumes = 0;
  /** Whether the run watches for being parked on people while paused (started by its first pause). */
  private watching = false;
  /** Parking on people publishes RUN_PAUSED / RUN_RESUMED (see WAITING_PAUSE_EVENTS_PATCH). */
  private announcesWaits = false;

  /**
   * `parentRunId`: the workflow to tell when this run is (no longer) parked; `paused`: a pause carried from the
   * previous run; `limits`: the run's, whose maxCostUsd a budget raise sets (so it is carried on and handed down like
   * any limit).
   */
  constructor(
    private readonly events: Emitter,
    private readonly parentRunId?: string,
    paused?: ControlRequest,
    private readonly limits?: { maxCostUsd?: number },
  ) {
    if (paused) {
      this.paused = true;
      this.request = paused;
      this.carriedPark = true;
      this.refuseDuplicatePauses = patched(PAUSE_DEDUPE_PATCH);
      this.watchWaits();
    }
    setHandler(childParkedSignal, ({ childId, parked }) => {
      if (parked) this.parkedChildren.add(childId);
      else this.parkedChildren.delete(childId);
      this.report();
    });
    setHandler(pauseSignal, (req) => this.pause(req));
    setHandler(upgradeSignal, () => {
      this.upgradeRequested = true;
    });
    setHandler(resumeSignal, (req) => this.resume(req));
    setHandler(budgetRaiseSignal, (raise) => this.raiseBudget(raise ?? {}));
    setHandler(
      pauseUpdate,
      async (req) => {
        this.pause(req);
        // A run that ends before its next safe point answers too, rather than leaving the caller with a failed update.
        await condition(() => !this.paused || this.isParked() || this.finished);
        return this.state();
      },
      {
        validator: (req) => {
          validateRequest(req);
          if (this.paused && this.refuseDuplicatePauses && !this.finished) throw this.alreadyPaused();
        },
      },
    );
    setHandler(
      resumeUpdate,
      (req) => {
        this.resume(req);
        return this.state();
      },
      { validator: validateRequest },
    );
  }

  /**
   * Where a run may stop: returns at once unless paused, else waits (publishing RUN_PAUSED / RUN_RESUMED). With
   * `orUpgrade`, a paused run also stops waiting when it says so (a newer worker version is current) and returns
   * 'upgrade', still paused and parked, so the run can continue as new onto that version and park there.
   */
  async safePoint(orUpgrade?: () => boolean, wakeAfterMs?: number): Promise<'continue' | 'upgrade'> {
    if (!this.paused) return 'continue';
    if (!this.parked) {
      // Not a second time when the run published it already while it waited on people (see watchWaits).
      const announce = !this.carriedPark && !this.owesResume;
      this.owesResume = true;
      // RUN_PAUSED first: whoever learns that the run (or its tree) is parked finds the event in the stream.
      if (announce) await this.emitPaused();
      this.carriedPark = false;
      this.parked = true;
      this.report();
    }
    const wake = () => !this.paused || orUpgrade?.() === true;
    if (wakeAfterMs === undefined) await condition(wake);
    else if (!(await condition(wake, wakeAfterMs))) this.resume({ reason: 'budget day ended', by: 'agio' });
    if (this.paused) return 'upgrade';
    this.parked = false;
    this.report();
    await this.emitResumed();
    return 'continue';
  }

  /** Pauses the run for a spent cost budget (unless paused already): RUN_PAUSED at its next safe point names it. */
  pauseForBudget(spent: BudgetSpent): void {
    if (this.paused) return;
    const { reason, by } = budgetPauseData(spent);
    this.pause({ reason, by });
    this.budget = spent;
  }

  /** Pauses the run because an approval expired with `onExpiry: 'pause'` (unless paused already). */
  pauseForApproval(): void {
    this.pause({ reason: 'approval_expired', by: 'agio' });
  }

  /** Waits while paused without parking the run (e.g. an approved tool call holds until resume). */
  async waitWhilePaused(): Promise<void> {
    if (!this.paused) return;
    await condition(() => !this.paused);
    // RUN_RESUMED before the tool's events (whichever of the waiters wakes first publishes it).
    if (this.announcesWaits) await this.emitResumed();
  }

  /**
   * Waits until the run may continue as new: parks here while paused (a pause update waits for the park, and would
   * keep the handlers from finishing), and no handler is still running. With `orUpgrade` (see {@link safePoint}), a
   * paused run continues as new still paused once it says so: carry {@link carriedPause} into the new run.
   */
  async beforeContinueAsNew(orUpgrade?: () => boolean): Promise<void> {
    for (;;) {
      if ((await this.safePoint(orUpgrade)) === 'upgrade') return condition(allHandlersFinished);
      await condition(() => this.paused || allHandlersFinished());
      if (!this.paused) return;
    }
  }

  /** Whether the run should move to the current worker version: a newer one is current, or an operator asked. */
  readonly upgradeWanted = (): boolean => this.upgradeRequested || targetVersionChanged();

  /** The pause to carry into a new run (a run continuing as new while paused), if paused. */
  carriedPause(): ControlRequest | undefined {
    return this.paused ? { ...this.request } : undefined;
  }

  /** Marks the run as ending: a pause still waiting for a safe point answers now (the run will never park). */
  finish(): void {
    this.finished = true;
  }

  /** Counts an activity in flight while `work` runs (a run is parked only when none is). */
  async track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await work;
    } finally {
      this.inFlight--;
      this.report();
    }
  }

  /**
   * Counts a branch that waits for a person while `work` runs: a paused run waiting only on people (and parked
   * children) is parked.
   */
  async waitForPerson<T>(work: Promise<T>): Promise<T> {
    this.waitingForPeople++;
    this.report();
    try {
      return await work;
    } finally {
      this.waitingForPeople--;
      this.report();
    }
  }

  /** Runs a started child until its result, forwarding pause/resume to it meanwhile. */
  async child<T>(handle: ChildWorkflowHandle<never>): Promise<T> {
    this.children.set(handle.workflowId, handle);
    if (this.paused) this.forward(handle, 'pause');
    try {
      return (await handle.result()) as T;
    } finally {
      this.children.delete(handle.workflowId);
      this.parkedChildren.delete(handle.workflowId);
      this.report();
    }
  }

  /** The control part of the state query. */
  state(): ControlState {
    if (this.finished) return { paused: false, parked: false, finished: true };
    return {
      paused: this.paused,
      parked: this.isParked(),
      ...(this.paused && this.request.by ? { pausedBy: this.request.by } : {}),
      ...(this.paused && this.request.reason ? { pauseReason: this.request.reason } : {}),
      ...(this.paused && this.budget ? { budget: this.budget } : {}),
    };
  }

  /** Ids of the children running now. */
  childIds(): string[] {
    return [...this.children.keys()];
  }

  /** Parked: stopped at a safe point, or waiting on nothing but people and children that are all parked themselves. */
  private isParked(): boolean {
    if (!this.paused) return false;
    if (this.parked) return true;
    return (
      this.inFlight === 0 &&
      (this.waitingForPeople > 0 || this.children.size > 0) &&
      [...this.children.keys()].every((id) => this.parkedChildren.has(id))
    );
  }

  /** Paused and parked with at least one branch waiting on a person (no safe point reached). */
  private parkedOnPeople(): boolean {
    return this.waitingForPeople > 0 && this.isParked();
  }

  /**
   * Publishes RUN_PAUSED when the paused run parks waiting on people (a safe point publishes it otherwise), and
   * RUN_RESUMED when it is resumed, each once per pause (under WAITING_PAUSE_EVENTS_PATCH). Runs for the rest of the
   * run from its first pause; a waiting condition costs nothing.
   */
  private watchWaits(): void {
    if (this.watching) return;
    this.watching = true;
    this.announceWaits().catch((err: Error) => {
      if (!isCancellation(err)) log.warn(`could not publish the pause of a run waiting on people: ${err.message}`);
    });
  }

  /** The loop of {@link watchWaits}: one pause after another, until the run ends. */
  private async announceWaits(): Promise<void> {
    for (;;) {
      await condition(() => this.finished || (this.paused && !this.owesResume && this.parkedOnPeople()));
      if (this.finished) return;
      const seen = this.resumes;
      this.announcesWaits ||= patched(WAITING_PAUSE_EVENTS_PATCH);
      if (this.announcesWaits) {
        this.owesResume = true;
        await this.emitPaused();
      }
      await condition(() => this.resumes !== seen || this.finished);
      if (this.finished) return;
      if (this.announcesWaits) await this.emitResumed();
    }
  }

  /** Publishes RUN_PAUSED for the current pause (who, why, and the budget it is paused for). */
  private emitPaused(): Promise<void> {
    const { reason, by } = this.request;
    const budget = this.budget ? { budget: this.budget } : {};
    return this.events.emit({
      type: 'RUN_PAUSED',
      data: { ...(reason ? { reason } : {}), ...(by ? { by } : {}), ...budget },
    });
  }

  /** Publishes the RUN_RESUMED a pause owes, once; resolves once it is published. */
  private emitResumed(): Promise<void> {
    if (this.owesResume) {
      this.owesResume = false;
      const { reason, by } = this.resumedWith;
      const emitted = this.events.emit({
        type: 'RUN_RESUMED',
        data: { ...(reason ? { reason } : {}), ...(by ? { by } : {}) },
      });
      // The other waiters only wait for it: its failure is the publisher's to meet.
      this.resuming = emitted.catch(() => undefined);
      return emitted;
    }
    return this.resuming;
  }

  /** Tells the parent when this run's parked state changes. */
  private report(): void {
    const parked = this.isParked();
    if (!this.parentRunId || parked === this.reportedParked) return;
    this.reportedParked = parked;
    getExternalWorkflowHandle(this.parentRunId)
      .signal(childParkedSignal, { childId: workflowInfo().workflowId, parked })
      .catch((err: Error) => log.warn(`could not report parked state to ${this.parentRunId}: ${err.message}`));
  }

  private pause(req: ControlRequest = {}): void {
    if (this.paused) return;
    this.refuseDuplicatePauses ||= patched(PAUSE_DEDUPE_PATCH);
    this.paused = true;
    this.request = req;
    for (const handle of this.children.values()) this.forward(handle, 'pause');
    this.report();
    this.watchWaits();
  }

  /** Why a second pause update is refused (the bridge answers 409 already_paused). */
  private alreadyPaused(): ApplicationFailure {
    const { by, reason } = this.request;
    const what = this.isParked() ? 'is paused' : 'has a pause pending (it parks at its next safe point)';
    return ApplicationFailure.create({
      type: ErrorType.AlreadyPaused,
      nonRetryable: true,
      message: `the run ${what}${by ? `, asked by ${by}` : ''}${reason ? ` (${reason})` : ''}; resume it first`,
    });
  }

  /** A budget raise: the new limit, forwarded down the tree, and a run paused for a budget resumes to ask again. */
  private raiseBudget(raise: BudgetRaise): void {
    if (this.limits && typeof raise.maxCostUsd === 'number') this.limits.maxCostUsd = raise.maxCostUsd;
    for (const handle of this.children.values()) {
      handle.signal(budgetRaiseSignal, raise).catch((err: Error) => {
        log.warn(`could not raise the budget of child ${handle.workflowId}: ${err.message}`);
      });
    }
    if (this.paused && this.budget) this.resume({ reason: 'budget raised', ...(raise.by ? { by: raise.by } : {}) });
  }

  private resume(req: ControlRequest = {}): void {
    if (!this.paused) return;
    this.paused = false;
    this.budget = undefined;
    this.request = req;
    this.resumedWith = req;
    this.resumes++;
    for (const handle of this.children.values()) this.forward(handle, 'resume');
    this.report();
  }

  private forward(handle: ChildWorkflowHandle<never>, what: 'pause' | 'resume'): void {
    const { reason, by } = this.request;
    const req = { reason: reason ?? `${what} of parent`, by: by ?? 'parent' };
    handle.signal(what === 'pause' ? pauseSignal : resumeSignal, req).catch((err: Error) => {
      log.warn(`could not ${what} child ${handle.workflowId}: ${err.message}`); // e.g. it has just finished
    });
  }
}

function validateRequest(req?: ControlRequest): void {
  if (req !== undefined && (typeof req !== 'object' || req === null)) throw new Error('expected { reason?, by? }');
  for (const key of ['reason', 'by'] as const) {
    if (req?.[key] !== undefined && typeof req[key] !== 'string') throw new Error(`${key} must be a string`);
  }
}
