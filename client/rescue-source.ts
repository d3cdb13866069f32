// What a retry or fork reads of its source run: its status and tenant (Temporal's record), the input its latest
// execution was started with (the agent spec, context and state exactly as the run recorded them), and its steps as the
// stores recorded them.
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { AgentRunInput, WorkflowType, type RunStatus, type Step } from '../common';
import type { SessionStore } from '../stores';
import { describeRun } from './run-description';
import { RescueRefusedError } from './rescue-errors';

/** Where a retry or fork reads a run's recorded steps: the stores' sessions (the workers' stores). */
export type StepReader = Pick<SessionStore, 'listSteps'>;

/** The source of a retry or fork, as recorded. */
export interface RescueSource {
  runId: string;
  status: RunStatus;
  /** What its latest execution was started with, its workflow argument (parsed: defaults filled in). */
  request: ReturnType<typeof AgentRunInput.parse>;
  /** Its stored steps, by index, up to the first gap. */
  steps: Step[];
}

/** Reads the run a retry or fork starts from: its status, recorded input and stored steps. */
export async function readSource(
  temporal: Client,
  steps: StepReader,
  tenant: string,
  runId: string,
): Promise<RescueSource> {
  // Another tenant's run is not found, as in the bridge.
  const { status, workflow: description } = await describeRun(temporal.workflow.getHandle(runId), runId, tenant);
  if (description.type !== WorkflowType.agentRun)
    throw new RescueRefusedError(
      'unsupported_run',
      `run "${runId}" is a ${description.type} run: only LLM agent runs (agentRun) can be retried or forked`,
    );
  const request = AgentRunInput.safeParse(await startInput(temporal, runId, description.runId));
  if (!request.success)
    throw new RescueRefusedError('unsupported_run', `run "${runId}" was started with an input this client cannot read`);
  const stored = [...(await steps.listSteps(tenant, runId))].sort((a, b) => a.index - b.index);
  const gap = stored.findIndex((step, i) => step.index !== i);
  return { runId, status, request: request.data, steps: gap < 0 ? stored : stored.slice(0, gap) };
}

/** The input the execution was started with: the first event of its history, decoded as any client decodes it. */
async function startInput(temporal: Client, workflowId: string, executionId: string): Promise<unknown> {
  const { history } = await temporal.workflowService.getWorkflowExecutionHistory({
    namespace: temporal.options.namespace,
    execution: { workflowId, runId: executionId },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  return decodeFromPayloadsAtIndex(temporal.workflow.options.loadedDataConverter, 0, payloads);
}
