// RunHandle: one run as a client holds it — its stream, result and state, pause/resume, tool-call approvals, and
// cancellation. Approvals go to whichever workflow in the run's tree asked, found from the run's events.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { AgioEvent, ControlRequest, ControlState, RunOutput, RunOutputOf, ToolCallDecision } from '../common';
import {
  decideToolCallUpdate,
  eventsQuery,
  pauseSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  stateQuery,
} from '../common/messages';
import { DecisionRejectedError, UnknownToolCallError } from './errors';
import type { ReadEventsOptions } from './event-reader';
import { followRun, type RunLogs } from './run-log';
import { parseCursor, type TreeCursor } from './tree-cursor';
import { stateView, type RunStateView } from './run-state-view';

/** A started or looked-up run; `T` is the type of its parsed output when its agent's output schema was given as zod (see `defineAgent`). */
export class RunHandle<T = RunOutput['output']> {
  constructor(
    readonly runId: string,
    private readonly handle: WorkflowHandle,
    private readonly client: Client,
    private readonly logs: RunLogs,
    /** True when the call that made this handle started the run; false for a repeated idempotent start and getHandle(). */
    readonly created = false,
  ) {}

  /**
   * The run's events from `after` in its log (or from the cursor `from`, see tree-cursor) on, with those of the runs
   * nested in it (read from their own logs when they keep one), ending after the run's own terminal event.
   */
  stream(opts: ReadEventsOptions & { from?: TreeCursor | string } = {}): AsyncGenerator<AgioEvent> {
    const from = typeof opts.from === 'string' ? parseCursor(opts.from) : opts.from;
    if (opts.from !== undefined && !from) throw new TypeError(`"${String(opts.from)}" is not a stream position`);
    return followRun(this.logs, this.runId, { ...opts, from });
  }

  /** The run's output; rejects with the run's failure. */
  result(): Promise<RunOutputOf<T>> {
    return this.handle.result() as Promise<RunOutputOf<T>>;
  }

  /** What the run is doing now, the model outage it is waiting out, if any, and its worker version (read from Temporal's record). */
  async state(): Promise<RunStateView> {
    const [state, description] = await Promise.all([this.handle.query(stateQuery), this.handle.describe()]);
    return stateView(state, description);
  }

  /** Pauses at the next safe point; resolves once the run is parked there (`wait: false`: just asks). */
  async pause(req: ControlRequest = {}, opts: { wait?: boolean } = {}): Promise<ControlState | undefined> {
    if (opts.wait === false) {
      await this.handle.signal(pauseSignal, req);
      return undefined;
    }
    return this.handle.executeUpdate(pauseUpdate, { args: [req] });
  }

  /** Resumes a paused run (and its paused children). */
  async resume(req: ControlRequest = {}, opts: { wait?: boolean } = {}): Promise<ControlState | undefined> {
    if (opts.wait === false) {
      await this.handle.signal(resumeSignal, req);
      return undefined;
    }
    return this.handle.executeUpdate(resumeUpdate, { args: [req] });
  }

  /** Approves a pending tool call anywhere in the run's tree (the owning workflow is found from the stream). */
  approve(
    toolCallId: string,
    opts: { remember?: boolean; by?: string } = {},
  ): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    return this.decide({ toolCallId, decision: 'approve', ...opts });
  }

  /** Denies a pending tool call; `message` is shown to the model. */
  deny(
    toolCallId: string,
    opts: { message?: string; by?: string } = {},
  ): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    return this.decide({ toolCallId, decision: 'deny', ...opts });
  }

  /**
   * The workflow (this run or a nested one) that asked for approval of this call, from its TOOL_AUTH_REQUIRED event.
   * Call ids come from the model and may repeat across turns or nested runs: the latest request still waiting for a
   * decision wins, else the latest request (whose owner then rejects the decision as already made).
   */
  async toolCallOwner(toolCallId: string): Promise<string | undefined> {
    const waiting: string[] = [];
    let latest: string | undefined;
    for await (const e of this.scanTree(this.runId)) {
      const data = e.data as { toolCallId?: string; workflowId?: string } | undefined;
      if (data?.toolCallId !== toolCallId || !data.workflowId) continue;
      if (e.type === 'TOOL_AUTH_REQUIRED') waiting.push((latest = data.workflowId));
      else if (e.type === 'TOOL_AUTH_GRANTED' || e.type === 'TOOL_AUTH_DENIED') {
        const i = waiting.lastIndexOf(data.workflowId);
        if (i >= 0) waiting.splice(i, 1);
      }
    }
    return waiting[waiting.length - 1] ?? latest;
  }

  /** Every event of run `runId`'s log as it is now, and those of the nested runs it points at (their own logs). */
  private async *scanTree(runId: string): AsyncGenerator<AgioEvent> {
    const handle = runId === this.runId ? this.handle : this.client.workflow.getHandle(runId);
    for (let after = -1; ;) {
      const page = await handle.query(eventsQuery, { after, limit: 1000 });
      for (const e of page.events) {
        if ((e as { ownLog?: boolean }).ownLog && e.runId !== runId && e.type === 'RUN_STARTED')
          yield* this.scanTree(e.runId);
        else yield e;
      }
      if (!page.events.length) return;
      after = page.events[page.events.length - 1].offset;
    }
  }

  private async decide(decision: ToolCallDecision): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    const owner = await this.toolCallOwner(decision.toolCallId);
    if (!owner)
      throw new UnknownToolCallError(
        `no tool call "${decision.toolCallId}" has asked for approval in run "${this.runId}"`,
      );
    try {
      return await this.client.workflow.getHandle(owner).executeUpdate(decideToolCallUpdate, { args: [decision] });
    } catch (err) {
      // The server refuses updates to a closed workflow as "not found"; the call was decided (or timed out) before it ended.
      if ((err as Error).name === 'WorkflowNotFoundError') {
        throw new DecisionRejectedError(
          `tool call "${decision.toolCallId}" is no longer waiting for a decision: the run that asked for it (${owner}) has ended`,
        );
      }
      throw err;
    }
  }

  /** Cancels the run and everything it started. */
  async cancel(): Promise<void> {
    await this.handle.cancel();
  }

  /** The Temporal handle, for anything Agio does not wrap. */
  get workflow(): WorkflowHandle {
    return this.handle;
  }
}
