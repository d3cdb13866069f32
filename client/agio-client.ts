// AgioClient: start agent runs (by spec or registered name), follow their streams, read results and state,
// and cancel them — over a Temporal Client, so it works wherever Temporal is reachable.
import { Client, WorkflowFailedError, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { AgentRegistry, DEFAULT_TASK_QUEUE, RunSearchAttributes, runLimitsFor, jsonBytes, modelInputTooLargeMessage, workflowTypeFor, type AgioEvent, type AnyAgentSpec, type ChatMessage, type LoopPosition, type ModelSettings, type ControlRequest, type ControlState, type PermissionRule, type RunContext, type RunMemo, type RunOutput, type RunOutputOf, type RunState, type ToolCallDecision, type TypedAgentSpec } from '../common';
import { decideToolCallUpdate, eventsQuery, pauseSignal, pauseUpdate, resumeSignal, resumeUpdate, stateQuery } from '../common/messages';
import type { ReadEventsOptions } from './event-reader';
import { startFingerprint, startIdempotent } from './idempotent-start';
import { withModelSettings } from './model-settings';
import { modelOutageOf, type ModelOutage } from './model-outage';
import { runVersionOf, type RunVersion } from './run-version';
import { followRun, RunLogs } from './run-log';
import { listRuns, type ListRunsOptions, type RunPage } from './run-list';

/** A run's state as clients see it: what the workflow says, whether its model call is failing, and its worker version. */
export type RunStateView = RunState & { modelUnavailable?: ModelOutage; version?: RunVersion };

/** The state with what Temporal's record adds: the model outage (see {@link modelOutageOf}) while there is one, and the run's version. */
export function stateView(state: RunState, description: WorkflowExecutionDescription): RunStateView {
  const outage = modelOutageOf(description);
  const version = runVersionOf(description);
  return { ...state, ...(outage ? { modelUnavailable: outage } : {}), ...(version ? { version } : {}) };
}

/** The memo stored on every run (defined with the other contracts; re-exported here, where clients always found it). */
export { RunMemo } from '../common';

/** Options of {@link AgioClient.start}. */
export interface StartOptions {
  /**
   * A caller-chosen run id makes the start idempotent: the same request again returns the same run, running or closed
   * (within the namespace's retention), with `created: false`; a different request under the id throws
   * IdempotencyConflictError. Without it every start is a new run (`run-<uuid>`). See docs/IDEMPOTENCY.md.
   */
  runId?: string;
  sessionId?: string;
  tenant?: string;
  userId?: string;
  limits?: Partial<RunContext['limits']>;
  state?: Record<string, unknown>;
  /** Permission rules for this run, checked before the agent's own (and inherited by nested runs). */
  permissions?: PermissionRule[];
  /** Loop agents: start at this position (seed 001's resume, for runs that were terminated or reset). */
  resumeFrom?: LoopPosition;
  /**
   * Model settings for this run, merged over the agent's own (a workflow agent: over every LLM sub-agent's; agents
   * used as tools keep theirs). They travel in the spec the run records.
   */
  modelSettings?: ModelSettings;
}

/** A started (or looked-up) run. */
/** A run; `T` is the type of its parsed output when its agent's output schema was given as zod (see `defineAgent`). */
export class RunHandle<T = RunOutput['output']> {
  constructor(
    readonly runId: string,
    private readonly handle: WorkflowHandle,
    private readonly client: Client,
    private readonly logs: RunLogs,
    /** True when the call that made this handle started the run; false for a repeated idempotent start and getHandle(). */
    readonly created = false,
  ) {}

  /** The run's events from `after` on, ending after the root's terminal event. */
  stream(opts: ReadEventsOptions = {}): AsyncGenerator<AgioEvent> {
    return followRun(this.logs, this.runId, opts);
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
  approve(toolCallId: string, opts: { remember?: boolean; by?: string } = {}): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    return this.decide({ toolCallId, decision: 'approve', ...opts });
  }

  /** Denies a pending tool call; `message` is shown to the model. */
  deny(toolCallId: string, opts: { message?: string; by?: string } = {}): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
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
    for (let after = -1; ; ) {
      const page = await this.handle.query(eventsQuery, { after, limit: 1000 });
      for (const e of page.events) {
        const data = e.data as { toolCallId?: string; workflowId?: string } | undefined;
        if (data?.toolCallId !== toolCallId || !data.workflowId) continue;
        if (e.type === 'TOOL_AUTH_REQUIRED') waiting.push((latest = data.workflowId));
        else if (e.type === 'TOOL_AUTH_GRANTED' || e.type === 'TOOL_AUTH_DENIED') {
          const i = waiting.lastIndexOf(data.workflowId);
          if (i >= 0) waiting.splice(i, 1);
        }
      }
      if (!page.events.length) return waiting[waiting.length - 1] ?? latest;
      after = page.events[page.events.length - 1].offset;
    }
  }

  private async decide(decision: ToolCallDecision): Promise<{ toolCallId: string; decision: 'approve' | 'deny' }> {
    const owner = await this.toolCallOwner(decision.toolCallId);
    if (!owner) throw new UnknownToolCallError(`no tool call "${decision.toolCallId}" has asked for approval in run "${this.runId}"`);
    try {
      return await this.client.workflow.getHandle(owner).executeUpdate(decideToolCallUpdate, { args: [decision] });
    } catch (err) {
      // The server refuses updates to a closed workflow as "not found"; the call was decided (or timed out) before it ended.
      if ((err as Error).name === 'WorkflowNotFoundError') {
        throw new DecisionRejectedError(`tool call "${decision.toolCallId}" is no longer waiting for a decision: the run that asked for it (${owner}) has ended`);
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

/** Starts and follows Agio runs. */
export class AgioClient {
  readonly agents: AgentRegistry;
  private readonly taskQueue: string;
  /** How runs' streams are read (one for every handle of this client). */
  private readonly logs: RunLogs;

  constructor(readonly temporal: Client, opts: { taskQueue?: string; agents?: AgentRegistry | AnyAgentSpec[] } = {}) {
    this.taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.logs = new RunLogs(temporal);
    this.agents = opts.agents instanceof AgentRegistry ? opts.agents : new AgentRegistry(opts.agents ?? []);
  }

  /** Starts a run of an agent given as a spec or a registered name. */
  start<T>(agent: TypedAgentSpec<T>, input: string | ChatMessage[], opts?: StartOptions): Promise<RunHandle<T>>;
  start(agent: AnyAgentSpec | string, input: string | ChatMessage[], opts?: StartOptions): Promise<RunHandle>;
  async start(agent: AnyAgentSpec | string, input: string | ChatMessage[], opts: StartOptions = {}): Promise<RunHandle> {
    const requested = typeof agent === 'string' ? this.agents.get(agent) : agent;
    const spec = opts.modelSettings ? withModelSettings(requested, opts.modelSettings) : requested;
    // Resolved here, once, and sent whole: the run decides with these defaults whatever release later runs it.
    const limits = runLimitsFor(spec, opts.limits);
    const maxInput = limits.maxModelInputBytes;
    const inputBytes = jsonBytes(input);
    if (inputBytes > maxInput) throw new InputTooLargeError(modelInputTooLargeMessage('the run input', inputBytes, maxInput), inputBytes, maxInput);
    const runId = opts.runId ?? `run-${randomUUID()}`;
    const tenant = opts.tenant ?? 'default';
    const args = {
      agent: spec,
      input,
      context: { tenant, ...(opts.sessionId ? { sessionId: opts.sessionId } : {}), ...(opts.userId ? { userId: opts.userId } : {}), limits, ...(opts.permissions ? { permissions: opts.permissions } : {}) },
      ...(opts.state ? { state: opts.state } : {}),
      ...(opts.resumeFrom ? { resumeFrom: opts.resumeFrom } : {}),
    };
    const workflowType = workflowTypeFor(spec.kind);
    // The request as the caller made it (limits as asked, not resolved), so a repeat matches whatever defaults apply.
    const { sessionId, userId, permissions, modelSettings, state, resumeFrom } = opts;
    const fingerprint = opts.runId
      ? startFingerprint({ workflowType, agent: requested, input, tenant, sessionId, userId, limits: opts.limits, permissions, modelSettings, state, resumeFrom })
      : undefined;
    const memo: RunMemo = { tenant, agent: spec.name, ...(fingerprint ? { fingerprint } : {}) };
    const typedSearchAttributes = [
      { key: RunSearchAttributes.tenant, value: tenant },
      { key: RunSearchAttributes.agent, value: spec.name },
      { key: RunSearchAttributes.rootRunId, value: runId },
    ];
    const options = { taskQueue: this.taskQueue, workflowId: runId, args: [args], memo, typedSearchAttributes };
    if (!fingerprint) return new RunHandle(runId, await this.temporal.workflow.start(workflowType, options), this.temporal, this.logs, true);
    const { handle, created } = await startIdempotent(this.temporal, workflowType, options, fingerprint);
    return new RunHandle(runId, handle, this.temporal, this.logs, created);
  }

  /** One page of a tenant's root runs, newest first (Temporal visibility; a just-started run may take a moment to show). */
  list(opts: ListRunsOptions = {}): Promise<RunPage> {
    return listRuns(this.temporal, opts);
  }

  /** A handle to an existing run. */
  getHandle<T = RunOutput['output']>(runId: string): RunHandle<T> {
    return new RunHandle(runId, this.temporal.workflow.getHandle(runId), this.temporal, this.logs);
  }

  /** Starts a run and yields its events (the seed's run_stream()); the last event is the root's terminal one. */
  async *runStream(agent: AnyAgentSpec | string, input: string | ChatMessage[], opts: StartOptions = {}): AsyncGenerator<AgioEvent> {
    const run = await this.start(agent, input, opts);
    yield* run.stream();
  }
}

/** A run input over the run's maxModelInputBytes: refused before anything is started. */
export class InputTooLargeError extends Error {
  override name = 'InputTooLargeError';
  constructor(message: string, readonly bytes: number, readonly limit: number) {
    super(message);
  }
}

/** A caller-chosen run id that names a run started by a different request (see {@link StartOptions.runId}). */
export { IdempotencyConflictError } from './idempotent-start';

/** No pending tool call with that id in the run's tree. */
export class UnknownToolCallError extends Error {
  override name = 'UnknownToolCallError';
}

/** A decision that can no longer be taken: the run that asked for it has ended. */
export class DecisionRejectedError extends Error {
  override name = 'DecisionRejectedError';
}

/** True when an error is a run's failure (as opposed to a connection problem). */
export function isRunFailure(err: unknown): err is WorkflowFailedError {
  return err instanceof WorkflowFailedError || (err as Error)?.name === 'WorkflowFailedError';
}
