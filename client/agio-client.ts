// AgioClient: start agent runs (by spec or registered name), follow their streams, read results and state,
// and cancel them — over a Temporal Client, so it works wherever Temporal is reachable.
import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  AgentRegistry,
  DEFAULT_TASK_QUEUE,
  RunSearchAttributes,
  runLimitsFor,
  jsonBytes,
  modelInputTooLargeMessage,
  workflowTypeFor,
  WorkflowType,
  type AgioEvent,
  type AnyAgentSpec,
  type CallbackAck,
  type CallbackResult,
  type ChatMessage,
  type RunMemo,
  type RunOutput,
  type TypedAgentSpec,
} from '../common';
import { InputTooLargeError } from './errors';
import { startFingerprint, startIdempotent } from './idempotent-start';
import { withModelSettings } from './model-settings';
import { RunHandle } from './run-handle';
import { RunLogs } from './run-log';
import { startInSession, startedOnce } from './session-start';
import { byNameArgs, contextOf, type StartOptions } from './start-options';
import { pendingApprovals, type PendingApprovalsOptions } from './approval-inbox';
import type { Inbox } from '../common/approval-inbox';
import { callbackTargetOf, completeCallback } from './callbacks';
import { countRuns, listRuns, waitingRunOf, type ListRunsOptions, type RunPage } from './run-list';
import type { EventLogStore } from '../stores';
import { payloadCodecsOf, type PayloadCodecs } from './payload-codecs';
import { WebhooksClient } from './webhooks';
import type { WebhookStore } from '../stores/webhooks';
import { AgioSchedules } from './schedules';
import { RunRescue, type StepReader } from './run-rescue';
import { BulkRedrives } from './bulk-redrive';

// Defined in modules of their own; re-exported here, where clients have always imported them.
export { RunHandle } from './run-handle';
export { SessionBusyError } from './session-start';
export { CallbackRefusedError, type CallbackRefusal } from './callbacks';
export { stateView, type RunStateView } from './run-state-view';
export { DecisionRejectedError, InputTooLargeError, UnknownToolCallError, isRunFailure } from './errors';
/** A caller-chosen run id that names a run started by a different request (see {@link StartOptions.runId}). */
export { IdempotencyConflictError } from './idempotent-start';
export type { StartOptions } from './start-options';
export type { RunDescription } from './run-description';
export type { RunStatusView } from './run-status-view';

/** The memo stored on every run (defined with the other contracts; re-exported here, where clients always found it). */
export { RunMemo } from '../common';

/** Starts and follows Agio runs. */
export class AgioClient {
  readonly agents: AgentRegistry;
  private readonly taskQueue: string;
  /** How runs' streams are read (one for every handle of this client). */
  private readonly logs: RunLogs;

  constructor(
    readonly temporal: Client,
    opts: { taskQueue?: string; agents?: AgentRegistry | AnyAgentSpec[] } = {},
  ) {
    this.taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.logs = new RunLogs(temporal);
    this.agents = opts.agents instanceof AgentRegistry ? opts.agents : new AgentRegistry(opts.agents ?? []);
  }

  /**
   * Starts a run of an agent given as a spec or by name. A name this client's `agents` hold starts with that spec; any
   * other name is resolved by the worker that takes the run, from its own agents (docs/ARCHITECTURE.md, "One run's
   * path"): a run of a name the worker does not know fails at once with UnknownAgent.
   */
  start<T>(agent: TypedAgentSpec<T>, input: string | ChatMessage[], opts?: StartOptions): Promise<RunHandle<T>>;
  start(agent: AnyAgentSpec | string, input: string | ChatMessage[], opts?: StartOptions): Promise<RunHandle>;
  async start(
    agent: AnyAgentSpec | string,
    input: string | ChatMessage[],
    opts: StartOptions = {},
  ): Promise<RunHandle> {
    const requested = typeof agent === 'string' ? (this.agents.find(agent) ?? agent) : agent;
    if (typeof requested === 'string')
      return this.launch(WorkflowType.byName, requested, byNameArgs(requested, input, opts), input, opts);
    const spec = opts.modelSettings ? withModelSettings(requested, opts.modelSettings) : requested;
    // Resolved here, once, and sent whole: the run decides with these defaults whatever release later runs it.
    const limits = runLimitsFor(spec, opts.limits);
    const maxInput = limits.maxModelInputBytes;
    const inputBytes = jsonBytes(input);
    if (inputBytes > maxInput)
      throw new InputTooLargeError(
        modelInputTooLargeMessage('the run input', inputBytes, maxInput),
        inputBytes,
        maxInput,
      );
    const args = {
      agent: spec,
      input,
      context: contextOf(opts, limits),
      ...(opts.state ? { state: opts.state } : {}),
      ...(opts.resumeFrom ? { resumeFrom: opts.resumeFrom } : {}),
    };
    return this.launch(workflowTypeFor(spec.kind), requested, args, input, opts);
  }

  /**
   * Starts the workflow: memo and search attributes name the agent from the start (a run by name under the name it was
   * asked for), and a caller-chosen run id makes it idempotent.
   */
  private async launch(
    workflowType: string,
    requested: AnyAgentSpec | string,
    args: unknown,
    input: string | ChatMessage[],
    opts: StartOptions,
  ): Promise<RunHandle> {
    const runId = opts.runId ?? `run-${randomUUID()}`;
    const tenant = opts.tenant ?? 'default';
    const name = typeof requested === 'string' ? requested : requested.name;
    // The request as the caller made it (limits as asked, not resolved), so a repeat matches whatever defaults apply.
    const { sessionId, userId, permissions, modelSettings, state, resumeFrom } = opts;
    const fingerprint = opts.runId
      ? startFingerprint({
          workflowType,
          agent: requested,
          input,
          tenant,
          sessionId,
          userId,
          limits: opts.limits,
          permissions,
          modelSettings,
          state,
          resumeFrom,
        })
      : undefined;
    const memo: RunMemo = { tenant, agent: name, ...(fingerprint ? { fingerprint } : {}) };
    const typedSearchAttributes = [
      { key: RunSearchAttributes.tenant, value: tenant },
      { key: RunSearchAttributes.agent, value: name },
      { key: RunSearchAttributes.rootRunId, value: runId },
    ];
    const options = { taskQueue: this.taskQueue, workflowId: runId, args: [args], memo, typedSearchAttributes };
    if (opts.onActiveRun && sessionId) {
      const searchAttributes = { tenant, agent: name, rootRunId: runId };
      const request = { workflowType, workflowId: runId, args: [args], memo: { ...memo }, searchAttributes };
      await startInSession(this.temporal, this.taskQueue, { tenant, sessionId }, request, opts.onActiveRun);
      const started = startedOnce(this.temporal, runId);
      // A start that was not refused runs at once (the runner starts it in its first task): answered once it has.
      if (opts.onActiveRun === 'reject') await started();
      return new RunHandle(runId, this.temporal.workflow.getHandle(runId), this.temporal, this.logs, true, started);
    }
    if (!fingerprint)
      return new RunHandle(
        runId,
        await this.temporal.workflow.start(workflowType, options),
        this.temporal,
        this.logs,
        true,
      );
    const { handle, created } = await startIdempotent(this.temporal, workflowType, options, fingerprint);
    return new RunHandle(runId, handle, this.temporal, this.logs, created);
  }

  /**
   * One page of a tenant's root runs, newest first (Temporal visibility; a just-started run may take a moment to show).
   */
  list(opts: ListRunsOptions = {}): Promise<RunPage> {
    return listRuns(this.temporal, opts);
  }

  /**
   * A tenant's tool calls waiting for a decision across its run trees, nested runs included, oldest first (listed from
   * visibility, which lags a moment; each run's pending calls read from the run itself).
   */
  pendingApprovals(opts: PendingApprovalsOptions = {}): Promise<Inbox> {
    return pendingApprovals(this.temporal, opts);
  }

  /**
   * Webhook subscriptions and deliveries kept in `store` (the workers' stores); resends start on this client's task
   * queue.
   */
  webhooks(store: WebhookStore): WebhooksClient {
    return new WebhooksClient(this.temporal, this.taskQueue, store);
  }

  /** How many of a tenant's root runs are in a status, e.g. `running` (visibility's count, which may lag a moment). */
  count(opts: Pick<ListRunsOptions, 'tenant' | 'agent' | 'status'>): Promise<number> {
    return countRuns(this.temporal, opts);
  }

  /** A tenant's schedules of runs (Temporal Schedules), started on this client's task queue. */
  get schedules(): AgioSchedules {
    return new AgioSchedules(this.temporal, this.taskQueue);
  }

  /** Bulk jobs that pause, resume, cancel or retry every run a filter matches, started on this client's task queue. */
  get bulk(): BulkRedrives {
    return new BulkRedrives(this.temporal, this.taskQueue);
  }

  /**
   * Completes the callback tool call a token names (the token its start was given, ctx.callback.token) with
   * `{ result }` or `{ error }`; the result is taken once. CallbackRefusedError says why not.
   */
  completeCallback(token: string, result: CallbackResult, opts: { via?: 'url' | 'client' } = {}): Promise<CallbackAck> {
    return completeCallback(this.temporal, callbackTargetOf(token), result, opts.via ?? 'client');
  }

  /**
   * Retries of runs from their last good step and forks at any step (client/run-rescue.ts), started on this client's
   * task queue from the steps `steps` recorded (the workers' stores' sessions).
   */
  rescue(steps: StepReader): RunRescue {
    return new RunRescue({ temporal: this.temporal, taskQueue: this.taskQueue, steps });
  }

  /** Resolves once Temporal answers (a health check); rejects with the connection's error when it does not. */
  async ping(): Promise<void> {
    await this.temporal.connection.workflowService.getSystemInfo({});
  }

  /** The payload codecs this client encodes and decodes with, and its namespace; undefined when it has none. */
  payloadCodecs(): PayloadCodecs | undefined {
    return payloadCodecsOf(this.temporal);
  }

  /**
   * A reader of runs' event logs of its own (its own counters), which reads a closed run's pages from `eventLog` (the
   * stores' event logs) instead of replaying it: what a bridge's shared stream readers follow trees with.
   */
  runLogs(eventLog?: EventLogStore): RunLogs {
    return new RunLogs(this.temporal, eventLog);
  }

  /**
   * The root run id of a running run (root or nested) whose id starts with `idPrefix` and has a tool call waiting for
   * a person (visibility, which lags a moment); undefined when there is none.
   */
  waitingRun(idPrefix: string): Promise<string | undefined> {
    return waitingRunOf(this.temporal, idPrefix);
  }

  /** A handle to an existing run. */
  getHandle<T = RunOutput['output']>(runId: string): RunHandle<T> {
    return new RunHandle(runId, this.temporal.workflow.getHandle(runId), this.temporal, this.logs);
  }

  /**
   * Starts a run and yields its events (the original Agio framework's run_stream()); the last event is the root's
   * terminal one.
   */
  async *runStream(
    agent: AnyAgentSpec | string,
    input: string | ChatMessage[],
    opts: StartOptions = {},
  ): AsyncGenerator<AgioEvent> {
    const run = await this.start(agent, input, opts);
    yield* run.stream();
  }
}
