// RunHandle: one run as a client holds it — its stream, result and state, pause/resume, tool-call approvals, and
// cancellation. Approvals go to whichever workflow in the run's tree asked, found from the run's events.
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  runStatusOf,
  typedEvent,
  type AgioEvent,
  type AgioEventOf,
  type BudgetRaise,
  type CallbackAck,
  type CallbackResult,
  type ControlRequest,
  type ControlState,
  type EventType,
  type RunOutput,
  type RunOutputOf,
  type ToolCallDecision,
  type WireEvent,
} from '../common';
import {
  decideToolCallUpdate,
  budgetRaiseSignal,
  pauseSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  stateQuery,
  type UserMessageAccepted,
} from '../common/messages';
import {
  DecisionRejectedError,
  RunClosedError,
  RunNotFoundError,
  UnknownToolCallError,
  isNotFound,
  runFailure,
  runRefusal,
} from './errors';
import type { ReadEventsOptions } from './event-reader';
import { followRun, followTree, type RunLogs } from './run-log';
import { cursorAt, parseCursor, type TreeCursor } from './tree-cursor';
import type { TreeEvent } from './tree-reader';
import { stateView, type RunStateView } from './run-state-view';
import { waitForEvent, type WaitForOptions } from './wait-for';
import { CallbackRefusedError, callbackWaitOf, completeCallback } from './callbacks';
import { sendMessage, type MessageOptions } from './run-messages';
import { afterStart } from './session-start';
import { describeRun, type RunDescription } from './run-description';
import { statusView, type RunStatusView } from './run-status-view';
import { approvalOwnerOf, scanTree } from './tree-scan';

/**
 * A started or looked-up run; `T` is the type of its parsed output when its agent's output schema was given as zod (see
 * `defineAgent`).
 */
export class RunHandle<T = RunOutput['output']> {
  constructor(
    readonly runId: string,
    private readonly handle: WorkflowHandle,
    private readonly client: Client,
    private readonly logs: RunLogs,
    /**
     * True when the call that made this handle started the run; false for a repeated idempotent start and getHandle().
     */
    readonly created = false,
    /** A run that waits its turn in its session (StartOptions.onActiveRun): resolves once its workflow has started. */
    private readonly started?: () => Promise<void>,
  ) {}

  /**
   * The run's events from `after` in its log (or from the cursor `from`, see tree-cursor) on, with those of the runs
   * nested in it (read from their own logs when they keep one), ending after the run's own terminal event.
   */
  stream(opts: ReadEventsOptions & { from?: TreeCursor | string } = {}): AsyncGenerator<AgioEvent> {
    const from = typeof opts.from === 'string' ? parseCursor(opts.from) : opts.from;
    if (opts.from !== undefined && !from) throw new TypeError(`"${String(opts.from)}" is not a stream position`);
    const follow = () => followRun(this.logs, this.runId, { ...opts, from });
    return this.typed(this.started ? afterStart(this.started, follow) : follow());
  }

  /**
   * The run's tree as {@link stream} reads it, each event with where it is (`path`: pointer offsets to its log) and the
   * cursor a reader that has it resumes from: what a protocol adapter needs to resume a stream or to tell which events
   * a position already covers (client/tree-cursor.ts `hasEvent`).
   */
  positioned(
    opts: Pick<ReadEventsOptions, 'signal' | 'minPollMs' | 'maxPollMs'> & { from?: TreeCursor } = {},
  ): AsyncGenerator<TreeEvent> {
    const follow = () => followTree(this.logs, this.runId, { ...opts, from: opts.from ?? cursorAt() });
    return this.found(this.started ? afterStart(this.started, follow) : follow());
  }

  /** The events as they are; a run Temporal does not have is RunNotFoundError. */
  private async *found<E>(events: AsyncIterable<E>): AsyncGenerator<E> {
    try {
      yield* events;
    } catch (err) {
      throw isNotFound(err) ? new RunNotFoundError(this.runId, { cause: err }) : err;
    }
  }

  /** The events as their types' fields say; a run Temporal does not have is RunNotFoundError. */
  private async *typed(events: AsyncIterable<WireEvent>): AsyncGenerator<AgioEvent> {
    for await (const event of this.found(events)) yield typedEvent(event);
  }

  /**
   * The first event of `type` (of any run of the tree, or of `opts.runId`'s; passing `opts.where`), read from the start
   * of the run's log, so one that happened before the call is found too. Rejects with RunClosedError when that run
   * ends first (waiting for its terminal event type itself resolves with it), RunNotFoundError when there is no run.
   */
  waitFor<K extends EventType>(type: K, opts: WaitForOptions<AgioEventOf<K>> = {}): Promise<AgioEventOf<K>> {
    return waitForEvent(this.stream({ signal: opts.signal }), this.runId, type, opts);
  }

  /**
   * The run's output. Rejects with RunFailedError (its `type` says why: OutputValidationError, Terminated, …),
   * RunCancelledError, or RunNotFoundError; each keeps Temporal's error as its `cause`.
   */
  async result(): Promise<RunOutputOf<T>> {
    try {
      await this.started?.();
      return (await this.handle.result()) as RunOutputOf<T>;
    } catch (err) {
      throw isNotFound(err) ? new RunNotFoundError(this.runId, { cause: err }) : runFailure(this.runId, err);
    }
  }

  /**
   * The run as Temporal's record says: status, tenant, agent, root. RunNotFoundError when there is no such run, or
   * (with `tenant`) when it is another tenant's: the same answer for both.
   */
  describe(opts: { tenant?: string } = {}): Promise<RunDescription> {
    return describeRun(this.handle, this.runId, opts.tenant);
  }

  /**
   * The run's status, where it came from, and once it has ended its output or error (GET /runs/:id). RunNotFoundError
   * as {@link describe} answers it.
   */
  async status(opts: { tenant?: string } = {}): Promise<RunStatusView> {
    return statusView(this.client, await this.describe(opts));
  }

  /**
   * What the run is doing now, the model outage it is waiting out, if any, and its worker version (read from Temporal's
   * record).
   */
  async state(): Promise<RunStateView> {
    const [state, description] = await this.control('read the state of', () =>
      Promise.all([this.handle.query(stateQuery), this.handle.describe()]),
    );
    return stateView(state, description);
  }

  /**
   * Runs a call on the run's workflow, turning Temporal's "not found" into RunClosedError (the run has ended) or
   * RunNotFoundError (there is no such run), and an update the run refused into RunRefusedError.
   */
  private async control<R>(action: string, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (err) {
      if (!isNotFound(err)) throw runRefusal(this.runId, err);
      const status = await this.handle.describe().then(
        (d) => runStatusOf(d.status.name),
        () => undefined,
      );
      if (!status) throw new RunNotFoundError(this.runId, { cause: err });
      throw new RunClosedError(this.runId, status, action, { cause: err });
    }
  }

  /**
   * Pauses at the next safe point; resolves once the run is parked there (`wait: false`: just asks). RunClosedError
   * when the run has ended.
   */
  async pause(req: ControlRequest = {}, opts: { wait?: boolean } = {}): Promise<ControlState | undefined> {
    if (opts.wait === false) {
      await this.control('pause', () => this.handle.signal(pauseSignal, req));
      return undefined;
    }
    return this.control('pause', () => this.handle.executeUpdate(pauseUpdate, { args: [req] }));
  }

  /** Resumes a paused run (and its paused children); RunClosedError when the run has ended. */
  async resume(req: ControlRequest = {}, opts: { wait?: boolean } = {}): Promise<ControlState | undefined> {
    if (opts.wait === false) {
      await this.control('resume', () => this.handle.signal(resumeSignal, req));
      return undefined;
    }
    return this.control('resume', () => this.handle.executeUpdate(resumeUpdate, { args: [req] }));
  }

  /**
   * Sets the run tree's cost budget (limits.maxCostUsd, US dollars): the run and every nested run running now take it,
   * and those paused for a budget ask again. Send it to the root (a nested run's raise reaches only its own subtree).
   * Without `maxCostUsd`, runs paused for their tenant's budget ask again. RunClosedError when the run has ended.
   */
  async raiseBudget(raise: BudgetRaise): Promise<void> {
    await this.control('raise the budget of', () => this.handle.signal(budgetRaiseSignal, raise));
  }

  /**
   * Adds a user message to this running agent run (a nested one too: use its run id): read before its next model call,
   * or with `mode: 'interrupt'` the model call in flight is cancelled and asked again with it. Resolves once the run
   * accepted it; MessageRefusedError when it is closing or a workflow agent, RunClosedError when it has ended.
   */
  message(text: string, opts: MessageOptions = {}): Promise<UserMessageAccepted> {
    return this.control('send a message to', () => sendMessage(this.handle, this.runId, text, opts));
  }

  /**
   * Approves a pending tool call anywhere in the run's tree (the owning workflow is found from the stream). `binding`:
   * the call's binding as shown (the inbox's), refused when the call waiting now has another; `roles`: the decider's.
   */
  approve(
    toolCallId: string,
    opts: { remember?: boolean; by?: string; binding?: string; roles?: string[] } = {},
  ): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    return this.decide({ toolCallId, decision: 'approve', ...opts });
  }

  /** Denies a pending tool call; `message` is shown to the model (`binding`, `roles`: see approve). */
  deny(
    toolCallId: string,
    opts: { message?: string; by?: string; binding?: string; roles?: string[] } = {},
  ): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    return this.decide({ toolCallId, decision: 'deny', ...opts });
  }

  /**
   * The workflow (this run or a nested one) that asked for approval of this call, from its TOOL_AUTH_REQUIRED event:
   * the latest request still waiting for a decision, else the latest request (call ids may repeat, see tree-scan.ts).
   */
  toolCallOwner(toolCallId: string): Promise<string | undefined> {
    return approvalOwnerOf(this.scanTree(), toolCallId);
  }

  /**
   * Completes a callback tool call waiting anywhere in the run's tree (its owner found from TOOL_CALLBACK_WAITING) with
   * `{ result }` or `{ error }`. CallbackRefusedError when it is not waiting, was completed already, or timed out.
   */
  async completeCallback(
    toolCallId: string,
    result: CallbackResult,
    opts: { via?: 'client' | 'client_tool' } = {},
  ): Promise<CallbackAck> {
    const target = await this.control('complete a callback of', () => callbackWaitOf(this.scanTree(), toolCallId));
    if (!target)
      throw new CallbackRefusedError('not_found', `no callback tool call "${toolCallId}" waits in run "${this.runId}"`);
    return completeCallback(this.client, target, result, opts.via ?? 'client');
  }

  /** Every event of the run's log as it is now, and those of the nested runs it points at (their own logs). */
  private scanTree(): AsyncGenerator<WireEvent> {
    return scanTree(this.client, this.runId, this.handle);
  }

  private async decide(decision: ToolCallDecision): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    const owner = await this.control('decide a tool call of', () => this.toolCallOwner(decision.toolCallId));
    if (!owner)
      throw new UnknownToolCallError(
        `no tool call "${decision.toolCallId}" has asked for approval in run "${this.runId}"`,
      );
    try {
      return await this.client.workflow.getHandle(owner).executeUpdate(decideToolCallUpdate, { args: [decision] });
    } catch (err) {
      // The server refuses updates to a closed workflow as "not found"; the call was decided (or timed out) before it
      // ended.
      if (isNotFound(err)) {
        throw new DecisionRejectedError(
          `tool call "${decision.toolCallId}" is no longer waiting for a decision: the run that asked for it (${owner}) has ended`,
        );
      }
      throw runRefusal(owner, err);
    }
  }

  /**
   * Cancels the run and everything it started. Resolves at once for a run already cancelled; RunClosedError for one
   * that ended otherwise (Temporal would accept the request and do nothing), RunNotFoundError when there is none.
   */
  async cancel(): Promise<void> {
    const { status } = await this.describe();
    if (status === 'cancelled') return;
    if (status !== 'running') throw new RunClosedError(this.runId, status, 'cancel');
    await this.control('cancel', () => this.handle.cancel());
  }

  /** The Temporal handle, for anything Agio does not wrap. */
  get workflow(): WorkflowHandle {
    return this.handle;
  }
}
