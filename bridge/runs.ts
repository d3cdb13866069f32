// Starting and looking up runs through Temporal, scoped to a tenant.
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { WorkflowType, type AgentRunInput, type AgentSpec, type RunOutput } from '../common';
import { runNotFound } from './errors';

/** Memo keys Agio stores on every root run. */
export type RunMemo = {
  tenant: string;
  agent: string;
};

/** Starts an agent run for a tenant; returns its run id (the workflow id). */
export async function startRun(client: Client, taskQueue: string, tenant: string, agent: AgentSpec, input: string, sessionId?: string): Promise<string> {
  const runId = `run-${randomUUID()}`;
  const args: AgentRunInput = { agent, input, context: { tenant, ...(sessionId ? { sessionId } : {}) } };
  const memo: RunMemo = { tenant, agent: agent.name };
  await client.workflow.start(WorkflowType.agentRun, { taskQueue, workflowId: runId, args: [args], memo });
  return runId;
}

/** Describes a run if it exists and belongs to the tenant; otherwise 404 (never reveals other tenants' runs). */
export async function describeRun(client: Client, tenant: string, runId: string): Promise<WorkflowExecutionDescription> {
  try {
    const description = await client.workflow.getHandle(runId).describe();
    if ((description.memo as Partial<RunMemo> | undefined)?.tenant !== tenant) throw runNotFound(runId);
    return description;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || (err as Error).name === 'WorkflowNotFoundError') throw runNotFound(runId);
    throw err;
  }
}

/** The run's status and, when it has finished, its output or error. */
export async function runStatus(client: Client, tenant: string, runId: string) {
  const description = await describeRun(client, tenant, runId);
  const status = description.status.name;
  const base = { runId, agent: (description.memo as Partial<RunMemo>).agent, status, startTime: description.startTime, closeTime: description.closeTime };
  if (status === 'COMPLETED') return { ...base, output: (await client.workflow.getHandle(runId).result()) as RunOutput };
  if (status === 'FAILED' || status === 'TERMINATED' || status === 'CANCELLED' || status === 'TIMED_OUT') {
    const error = await client.workflow
      .getHandle(runId)
      .result()
      .then(() => undefined, (err: Error) => ({ message: (err.cause as Error | undefined)?.message ?? err.message }));
    return { ...base, error };
  }
  return base;
}
