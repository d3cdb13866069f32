// Retry a run from its last good step, or fork it at any step (issue 35): a new root run of the source's agent (as its
// history recorded it) that starts from the source's stored steps instead of its instructions and input, so no model
// call already made is paid for again. The source keeps its history; both show the link (common/run-origin.ts).
import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  OriginSearchAttributes,
  RunSearchAttributes,
  WorkflowType,
  jsonBytes,
  runLimitsFor,
  withModelSettings,
  type AgentRunInput,
  type AgentSpec,
  type ModelSettings,
  type PermissionRule,
  type RunLimits,
  type RunMemo,
  type RunOrigin,
  type Step,
} from '../common';
import { RescueRefusedError } from './rescue-errors';
import { forkSteps, retrySteps, type StepEdits } from './rescue-seed';
import { readSource, type RescueSource, type StepReader } from './rescue-source';

export { RescueRefusedError, type RescueRefusal } from './rescue-errors';
export type { StepEdits } from './rescue-seed';
export type { StepReader } from './rescue-source';

/** Largest workflow input a retry or fork is started with (UTF-8 bytes of JSON), under Temporal's 2 MiB payload cap. */
export const MAX_SEED_BYTES = 1_600_000;

/** Where retries and forks start and read: a Temporal client, the workers' task queue, and the stores' steps. */
export interface RescueTarget {
  temporal: Client;
  taskQueue: string;
  steps: StepReader;
}

/** What a retry may change; unset: as the source ran. */
export interface RetryOptions {
  /** The tenant whose run it is (default `default`): another tenant's run is not found. */
  tenant?: string;
  /** Limits over the source's (which stay as they were otherwise). */
  limits?: Partial<RunLimits>;
  /** Model settings merged over the source agent's. */
  modelSettings?: ModelSettings;
  /** Another model for the new run. */
  model?: string;
  /** Permission rules checked before the agent's own, instead of the source's. */
  permissions?: PermissionRule[];
  /**
   * Called with the source's recorded agent (edits not applied) before anything starts: throw to refuse what the
   * caller may not set (the bridge refuses limits and maxTokens above the agent's own, as POST /runs does).
   */
  check?: (agent: AgentSpec) => void;
}

/** A fork: the step it starts at, what it changes there and in the agent. */
export interface ForkOptions extends RetryOptions, StepEdits {
  /** The source step the fork starts at (see forkSteps: the steps before it are copied). */
  step: number;
  /** Other instructions for the agent (the copied system step is written from them). */
  instructions?: string;
}

/** A retry or fork that started. */
export interface RescuedRun {
  runId: string;
  origin: RunOrigin;
  /** How many of the source's steps it starts from. */
  copiedSteps: number;
}

/**
 * Retries a failed, cancelled, terminated or timed-out run (root or nested) from its last completed step: a new root
 * run with the same agent, conversation, state, workspace and limits (and `opts`' overrides). RescueRefusedError when
 * the run is still running or completed; RunNotFoundError when there is no such run of the tenant.
 */
export async function retryRun(target: RescueTarget, runId: string, opts: RetryOptions = {}): Promise<RescuedRun> {
  const tenant = opts.tenant ?? 'default';
  const source = await readSource(target.temporal, target.steps, tenant, runId);
  if (source.status === 'running')
    throw new RescueRefusedError('run_running', `run "${runId}" is still running: cancel it first, or fork it`);
  if (source.status === 'completed')
    throw new RescueRefusedError('run_completed', `run "${runId}" completed: fork it at a step to run it again`);
  const steps = retrySteps(source.steps);
  return startFrom(target, source, steps, { retriedFrom: runId }, opts, true);
}

/**
 * Forks a run (any status, running included) at `opts.step`: a new root run from the conversation up to that step,
 * edited (another model or settings, instructions, a replaced tool result or user message). It gets its own workspace.
 */
export async function forkRun(target: RescueTarget, runId: string, opts: ForkOptions): Promise<RescuedRun> {
  const tenant = opts.tenant ?? 'default';
  const source = await readSource(target.temporal, target.steps, tenant, runId);
  const steps = forkSteps(source.steps, opts.step, opts);
  const withInstructions =
    opts.instructions !== undefined && steps[0]?.role !== 'system' ? [instructionsStep(), ...steps] : steps;
  return startFrom(target, source, withInstructions, { forkedFrom: runId, step: opts.step }, opts, false);
}

/**
 * A placeholder system step: the new run writes its content from its instructions
 * (workflows/agent-loop/agent-run-state.ts).
 */
function instructionsStep(): Step {
  return { id: 'instructions', runId: '', index: 0, role: 'system', content: '' };
}

/** Starts the new root run of the source's agent from `steps`. */
async function startFrom(
  target: RescueTarget,
  source: RescueSource,
  steps: Step[],
  origin: RunOrigin,
  opts: ForkOptions | RetryOptions,
  sameWorkspace: boolean,
): Promise<RescuedRun> {
  const tenant = opts.tenant ?? 'default';
  const recorded = source.request.agent;
  opts.check?.(recorded);
  let agent: AgentSpec = { ...recorded, ...(opts.model ? { model: opts.model } : {}) };
  if ('instructions' in opts && opts.instructions !== undefined) agent = { ...agent, instructions: opts.instructions };
  if (opts.modelSettings) agent = withModelSettings(agent, opts.modelSettings);
  const context = source.request.context;
  const runId = `run-${randomUUID()}`;
  const args: AgentRunInput = {
    agent,
    input: source.request.input,
    context: {
      tenant,
      ...(context?.userId ? { userId: context.userId } : {}),
      // The source's limits as it ran with them (resolved at its start), the overrides over them.
      limits: runLimitsFor(agent, { ...context?.limits, ...opts.limits }),
      ...((opts.permissions ?? context?.permissions) ? { permissions: opts.permissions ?? context?.permissions } : {}),
      // A retry goes on in the files the source left; a fork, beside a source that may still run, gets its own.
      ...(sameWorkspace && context?.workspace ? { workspace: context.workspace } : {}),
    },
    ...(source.request.state ? { state: source.request.state } : {}),
    seed: { steps, origin },
  };
  const bytes = jsonBytes(args);
  if (bytes > MAX_SEED_BYTES)
    throw new RescueRefusedError(
      'seed_too_large',
      `the conversation to copy is ${bytes} bytes, over the ${MAX_SEED_BYTES} one run's input may carry: fork at an earlier step`,
    );
  const memo: RunMemo = { tenant, agent: agent.name, origin };
  await target.temporal.workflow.start(WorkflowType.agentRun, {
    taskQueue: target.taskQueue,
    workflowId: runId,
    args: [args],
    memo,
    typedSearchAttributes: [
      { key: RunSearchAttributes.tenant, value: tenant },
      { key: RunSearchAttributes.agent, value: agent.name },
      { key: RunSearchAttributes.rootRunId, value: runId },
      { key: OriginSearchAttributes.rescuedFrom, value: source.runId },
    ],
  });
  return { runId, origin, copiedSteps: steps.length };
}

/** Retries and forks of runs for one client: its Temporal client and task queue, and where the steps are read. */
export class RunRescue {
  constructor(private readonly target: RescueTarget) {}

  /** See {@link retryRun}. */
  retry(runId: string, opts: RetryOptions = {}): Promise<RescuedRun> {
    return retryRun(this.target, runId, opts);
  }

  /** See {@link forkRun}. */
  fork(runId: string, opts: ForkOptions): Promise<RescuedRun> {
    return forkRun(this.target, runId, opts);
  }
}
