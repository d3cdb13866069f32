// AgioClient: start agent runs (by spec or registered name), follow their streams, read results and state,
// and cancel them — over a Temporal Client, so it works wherever Temporal is reachable.
import { context as otelContext, isSpanContextValid, trace } from '@opentelemetry/api';
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
  type AgentByNameInput,
  type AgioEvent,
  type AnyAgentSpec,
  type CallbackAck,
  type CallbackResult,
  type ChatMessage,
  type LoopPosition,
  type ModelSettings,
  type PermissionRule,
  type RunContext,
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
import type { OnActiveRun } from '../common/session-runs';
import { pendingApprovals, type PendingApprovalsOptions } from './approval-inbox';
import type { Inbox } from '../common/approval-inbox';
import { callbackTargetOf, completeCallback } from './callbacks';
import { countRuns, listRuns, type ListRunsOptions, type RunPage } from './run-list';
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
  /**
   * A run by a name this client does not hold: the worker refuses `limits` and `modelSettings.maxTokens` above the
   * agent's own (the run fails with LimitAboveAgent). With a spec the caller checks that itself (the bridge does).
   */
  tightenOnly?: boolean;
  /**
   * With `sessionId`: what to do when the session has a run running that was started with this option too (see
   * common/session-runs.ts): `reject` (SessionBusyError naming it), `enqueue` (the run starts when that one ends; its
   * handle finds no run until then), `interrupt` (that run is cancelled, its steps kept in the session's conversation),
   * `rollback` (cancelled and its steps taken out). Unset: the run starts at once beside any other (as before).
   */
  onActiveRun?: OnActiveRun;
}

/** The context a start sends (`limits`: resolved for a spec, the caller's overrides for a name). */
function contextOf(opts: StartOptions, limits: Partial<RunContext['limits']> | undefined): Partial<RunContext> {
  return {
    tenant: opts.tenant ?? 'default',
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
    ...(opts.userId ? { userId: opts.userId } : {}),
    ...(limits ? { limits } : {}),
    ...(opts.permissions ? { permissions: opts.permissions } : {}),
    ...activeTrace(),
  } as Partial<RunContext>;
}

/** The caller's active OpenTelemetry span, if any: the run's spans join its trace, under it. */
function activeTrace(): Pick<RunContext, 'traceId' | 'spanId'> {
  const span = trace.getSpanContext(otelContext.active());
  return span && isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : {};
}

/** The agentByName workflow's input: the name, and the settings the worker applies once it has the spec. */
function byNameArgs(name: string, input: string | ChatMessage[], opts: StartOptions): AgentByNameInput {
  return {
    agentName: name,
    input,
    context: contextOf(opts, opts.limits),
    ...(opts.state ? { state: opts.state } : {}),
    ...(opts.resumeFrom ? { resumeFrom: opts.resumeFrom } : {}),
    ...(opts.modelSettings ? { modelSettings: opts.modelSettings } : {}),
    ...(opts.tightenOnly ? { tightenOnly: true } : {}),
  };
}

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

  /** One page of a tenant's root runs, newest first (Temporal visibility; a just-started run may take a moment to show). */
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

  /** Webhook subscriptions and deliveries kept in `store` (the workers' stores); resends start on this client's task queue. */
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

  /** A handle to an existing run. */
  getHandle<T = RunOutput['output']>(runId: string): RunHandle<T> {
    return new RunHandle(runId, this.temporal.workflow.getHandle(runId), this.temporal, this.logs);
  }

  /** Starts a run and yields its events (the original Agio framework's run_stream()); the last event is the root's terminal one. */
  async *runStream(
    agent: AnyAgentSpec | string,
    input: string | ChatMessage[],
    opts: StartOptions = {},
  ): AsyncGenerator<AgioEvent> {
    const run = await this.start(agent, input, opts);
    yield* run.stream();
  }
}
